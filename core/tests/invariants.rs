//! The common laws on random games of every rule set from every start it
//! has (docs/spec/rules.md §2.1 moves, §2.3 what a repetition compares,
//! §8 extended FEN): the legal moves are exactly the brute-force ones (the
//! pseudo-legal moves after which the mover's king is not attacked, as the
//! rule set counts attacks), every move's UCI and SAN read back to it, the
//! FEN reads back to itself, and the repetition key kept move by move is
//! the position's own.

mod common;

use kingpost_core::{Rules, StartKind};

#[test]
fn every_rule_set_from_every_start_keeps_the_invariants() {
    for (seed, rules) in (1..).zip(Rules::ALL) {
        for (offset, &kind) in (0..).zip(rules.starts()) {
            if kind == StartKind::Fen {
                continue;
            }
            let positions = common::check_random_games(rules, seed * 10 + offset, 60, 200, |rng| {
                common::random_start(kind, rng).expect("a start with positions of its own")
            });
            assert!(positions > 2_000, "{rules} {kind:?}: {positions} positions");
        }
    }
}
