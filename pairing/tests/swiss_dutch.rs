//! The Dutch system (C.04.3) against py4swiss, an independent
//! implementation its authors check against bbpPairings: every round of
//! the simulated tournaments (`scripts/swiss-simulate.py`), paired from
//! the same TRF file, gives the same pairs with the same colours in the
//! same order; and the Dutch pairings bbpPairings' own tests expect.

mod common;

use common::{Simulated, before_round, pairs, simulated};
use kingpost_pairing::{
    graph::Solving,
    swiss::dutch::{Unpairable, pair_next_round, pair_next_round_with},
    trf::Report,
};

/// Each round twice: with each matching repaired from the last (as the
/// service pairs) and solved from scratch, a different way through the
/// matchings of equal weight: the rules, not the solver, choose.
#[test]
fn every_simulated_round_is_paired_as_py4swiss_paired_it() {
    let mut rounds_compared = 0;
    let mut mismatches = Vec::new();
    for solving in [Solving::Incremental, Solving::FromScratch] {
        for Simulated {
            name,
            report,
            rounds,
            ..
        } in simulated()
        {
            for (i, round) in rounds.iter().enumerate() {
                let ours = pair_next_round_with(&before_round(&report, i + 1), solving)
                    .unwrap_or_else(|e| panic!("{name}: round {}: {e}", i + 1));
                let theirs = pairs(round);
                if ours != theirs {
                    mismatches.push(format!(
                        "{name}: round {} ({solving:?}):\n  ours   {ours:?}\n  theirs {theirs:?}",
                        i + 1
                    ));
                }
                rounds_compared += 1;
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {rounds_compared} rounds differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(rounds_compared >= 60, "{rounds_compared} rounds compared");
    eprintln!(
        "{} rounds, each paired both ways, as py4swiss paired them",
        rounds_compared / 2
    );
}

#[test]
fn a_round_py4swiss_could_not_pair_is_unpairable() {
    for simulated in simulated() {
        if let Some(report) = simulated.unpairable {
            assert_eq!(
                pair_next_round(&report),
                Err(Unpairable),
                "{}",
                simulated.name
            );
        }
    }
}

/// A pairing as bbpPairings' tests write it: the number of pairs, then a
/// pair a line (`0` for the bye).
fn pairs_file(path: &std::path::Path) -> Vec<(u32, Option<u32>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let count: usize = lines.next().unwrap().trim().parse().unwrap();
    let pairs: Vec<(u32, Option<u32>)> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace().map(|n| n.parse::<u32>().unwrap());
            let (white, black) = (it.next().unwrap(), it.next().unwrap());
            (white, (black != 0).then_some(black))
        })
        .collect();
    assert_eq!(pairs.len(), count, "{}", path.display());
    pairs
}

fn bbp(name: &str, extension: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bbp")
        .join(format!("{name}.{extension}"))
}

/// The file's next round, paired both ways, the same.
fn pair_bbp_file(name: &str) -> Vec<(u32, Option<u32>)> {
    let report = Report::parse(&std::fs::read_to_string(bbp(name, "trf")).unwrap()).unwrap();
    let ours = pair_next_round(&report).unwrap();
    let scratch = pair_next_round_with(&report, Solving::FromScratch).unwrap();
    assert_eq!(ours, scratch, "{name}");
    ours
}

#[test]
fn bbppairings_test_on_c9_is_paired_as_bbppairings_pairs_it() {
    let name = "dutch_2025_C9";
    assert_eq!(pair_bbp_file(name), pairs_file(&bbp(name, "pairs")));
}

/// Two of bbpPairings' tests follow the revision of C.04.3 in force from
/// 1 February 2026, which bbpPairings v6 implements; kingpost, like
/// py4swiss 0.3.1, pairs by the rules in force until then. On these
/// files both give py4swiss's pairing (`.py4swiss`), not bbpPairings'.
#[test]
fn bbppairings_tests_of_the_2026_revision_are_paired_as_py4swiss_pairs_them() {
    for name in ["dutch_2025_C5", "issue_7"] {
        let ours = pair_bbp_file(name);
        assert_eq!(ours, pairs_file(&bbp(name, "py4swiss")), "{name}");
        assert_ne!(ours, pairs_file(&bbp(name, "pairs")), "{name}");
    }
}
