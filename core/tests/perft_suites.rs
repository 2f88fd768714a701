//! The published perft suites: the proof of the `standard` move generator,
//! from the usual array and from Chess960 arrays.

mod common;

use common::{PerftCase, read_epd_file, read_perft_file};
use kingpost_core::{Position, Rules, perft};

/// Checks every count of `cases` up to `max_nodes` leaves.
fn check(cases: &[PerftCase], max_nodes: u64) -> usize {
    let mut checked = 0;
    for case in cases {
        let pos = Position::from_fen(Rules::Standard, &case.fen)
            .unwrap_or_else(|e| panic!("{} {}: {e}", case.id, case.fen));
        for &(depth, expected) in case.counts.iter().filter(|(_, n)| *n <= max_nodes) {
            assert_eq!(
                perft(&pos, depth),
                expected,
                "{} {} depth {depth}",
                case.id,
                case.fen
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn cpw_positions() {
    let cases = read_epd_file("cpw_perft_results.epd");
    assert_eq!(
        cases.len(),
        7,
        "the six positions and the mirror of position 4"
    );
    assert!(check(&cases, 5_000_000) >= 24);
}

#[test]
fn shakmaty_tricky_positions() {
    let mut cases = read_perft_file("shakmaty_tricky.perft");
    assert!(cases.len() > 20);
    // Positions no game reaches, which kingpost refuses (docs/spec/rules.md §2.6,
    // `fen` starts): 28 white units; two knights checking at once.
    for (id, expected) in [
        ("max-legals-too-much-material", "more than the 16 of a game"),
        ("two-knight-checkers", "in check from two knights"),
    ] {
        let at = cases.iter().position(|c| c.id == id).unwrap();
        let refused = cases.remove(at);
        let error = Position::from_fen(Rules::Standard, &refused.fen).unwrap_err();
        assert!(
            matches!(error, kingpost_core::FenError::Impossible(_))
                && error.to_string().contains(expected),
            "{id}: {error}"
        );
    }
    assert!(check(&cases, 2_000_000) > 60);
}

#[test]
fn chess960_positions_to_depth_3() {
    let cases = read_perft_file("shakmaty_chess960.perft");
    assert_eq!(cases.len(), 960);
    let shallow: Vec<PerftCase> = cases
        .into_iter()
        .map(|mut case| {
            case.counts.retain(|&(depth, _)| depth <= 3);
            case
        })
        .collect();
    assert_eq!(check(&shallow, u64::MAX), 960 * 3);
}

#[test]
#[ignore = "deep perft: minutes; run with --ignored"]
fn deep_cpw_positions() {
    check(&read_epd_file("cpw_perft_results.epd"), 200_000_000);
}

#[test]
#[ignore = "deep perft: minutes; run with --ignored"]
fn deep_chess960_positions() {
    check(&read_perft_file("shakmaty_chess960.perft"), 10_000_000);
}
