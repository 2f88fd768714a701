//! What the next round's pairing reads of each player (C.04.3 A.2-A.7:
//! score, colour difference and preference, floats, opponents, byes,
//! topscorers) against what py4swiss derives from the same files:
//! tournaments simulated by `scripts/swiss-simulate.py`, paired round by
//! round by py4swiss's Dutch engine (`tests/data/py4swiss/`).

mod common;

use common::{Simulated, before_round, simulated};
use kingpost_pairing::{
    swiss::players::{Entrant, Float, Strength, entrants},
    trf::Colour,
};
use serde_json::Value;

fn colour_name(colour: Option<Colour>) -> &'static str {
    match colour {
        Some(Colour::White) => "white",
        Some(Colour::Black) => "black",
        None => "none",
    }
}

fn as_json(entrant: &Entrant) -> Value {
    let float = |f: Float| match f {
        Float::None => "none",
        Float::Up => "up",
        Float::Down => "down",
    };
    let strength = match entrant.preference.strength {
        Strength::None => "none",
        Strength::Mild => "mild",
        Strength::Strong => "strong",
        Strength::Absolute => "absolute",
    };
    serde_json::json!({
        "id": entrant.number,
        "points": entrant.points_tenths,
        "colour_difference": entrant.colour_difference,
        "colour_double": entrant.colour_double,
        "preference": [colour_name(entrant.preference.colour), strength],
        "float_1": float(entrant.floats[0]),
        "float_2": float(entrant.floats[1]),
        "opponents": entrant.opponents,
        "bye_received": entrant.bye_received,
        "top_scorer": entrant.topscorer,
    })
}

#[test]
fn every_player_of_every_round_reads_as_py4swiss_reads_them() {
    let mut compared = 0;
    for Simulated {
        name,
        report,
        rounds,
        ..
    } in simulated()
    {
        for (i, round) in rounds.iter().enumerate() {
            let ours: Vec<Value> = entrants(&before_round(&report, i + 1))
                .iter()
                .map(as_json)
                .collect();
            let theirs = round["players"].as_array().unwrap();
            assert_eq!(ours.len(), theirs.len(), "{name}: round {}", i + 1);
            for (mine, py4swiss) in ours.iter().zip(theirs) {
                assert_eq!(mine, py4swiss, "{name}: round {}", i + 1);
                compared += 1;
            }
        }
    }
    assert!(compared > 1_000, "{compared} players compared");
}
