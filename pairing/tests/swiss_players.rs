//! What the next round's pairing reads of each player (C.04.3 A.2-A.7:
//! score, colour difference and preference, floats, opponents, byes,
//! topscorers) against what py4swiss derives from the same files:
//! tournaments simulated by `scripts/swiss-simulate.py`, paired round by
//! round by py4swiss's Dutch engine (`tests/data/py4swiss/`).

use kingpost_pairing::{
    swiss::players::{Entrant, Float, Strength, entrants},
    trf::{Colour, Report, RoundResult},
};
use serde_json::Value;

/// The tournament as it stood when `round` (from 1) was paired: the rounds
/// before it, and that round's absences already written.
fn before_round(report: &Report, round: usize) -> Report {
    let mut cut = report.clone();
    for player in &mut cut.players {
        let decided = player.rounds.get(round - 1).is_some_and(|entry| {
            entry.opponent.is_none()
                && matches!(entry.result, RoundResult::HalfBye | RoundResult::ZeroBye)
        });
        player
            .rounds
            .truncate(if decided { round } else { round - 1 });
    }
    cut
}

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
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/py4swiss");
    let mut tournaments = 0;
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "trf") {
            continue;
        }
        let report = Report::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap())
                .unwrap();
        for (i, round) in record["rounds"].as_array().unwrap().iter().enumerate() {
            let ours: Vec<Value> = entrants(&before_round(&report, i + 1))
                .iter()
                .map(as_json)
                .collect();
            let theirs = round["players"].as_array().unwrap();
            assert_eq!(
                ours.len(),
                theirs.len(),
                "{}: round {}",
                path.display(),
                i + 1
            );
            for (mine, py4swiss) in ours.iter().zip(theirs) {
                assert_eq!(mine, py4swiss, "{}: round {}", path.display(), i + 1);
                compared += 1;
            }
        }
        tournaments += 1;
    }
    assert!(
        tournaments >= 10 && compared > 1_000,
        "{tournaments} tournaments, {compared} players"
    );
}
