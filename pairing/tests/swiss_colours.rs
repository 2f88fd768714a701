//! Who has white (C.04.3 E.1-E.5) and the order of publication (C.04.2
//! D.9), against every pair py4swiss made in the simulated tournaments:
//! given the two players it paired, the same colours, and its pairs in
//! the same order.

mod common;

use common::{Simulated, before_round, pairs, simulated};
use kingpost_pairing::{
    swiss::{
        colours::{colour_of_higher, publishing_order, ranks_above},
        players::entrants,
    },
    trf::Colour,
};

#[test]
fn every_pair_gets_the_colours_py4swiss_gave() {
    let mut compared = 0;
    for Simulated {
        name,
        report,
        rounds,
        ..
    } in simulated()
    {
        for (i, round) in rounds.iter().enumerate() {
            let players = entrants(&before_round(&report, i + 1));
            let find = |n: u32| players.iter().find(|e| e.number == n).unwrap();
            for (white, black) in pairs(round) {
                let Some(black) = black else { continue };
                let (w, b) = (find(white), find(black));
                let (higher, lower) = if ranks_above(w, b) { (w, b) } else { (b, w) };
                let colour = colour_of_higher(higher, lower, Colour::White);
                let ours = if colour == Colour::White {
                    higher.number
                } else {
                    lower.number
                };
                assert_eq!(ours, white, "{name}: round {}: {white} - {black}", i + 1);
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "{compared} pairs compared");
}

#[test]
fn every_round_is_published_in_py4swiss_order() {
    for Simulated {
        name,
        report,
        rounds,
        ..
    } in simulated()
    {
        for (i, round) in rounds.iter().enumerate() {
            let players = entrants(&before_round(&report, i + 1));
            let published = pairs(round);
            let mut ours = published.clone();
            ours.reverse();
            publishing_order(&players, &mut ours);
            assert_eq!(ours, published, "{name}: round {}", i + 1);
        }
    }
}
