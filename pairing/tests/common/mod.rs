//! The tournaments simulated by `scripts/swiss-simulate.py` and paired
//! round by round by py4swiss: those kept in `tests/data/py4swiss/`, or
//! those of the directory `KINGPOST_SWISS_RECORDS` names (CI simulates new
//! ones each run); their tie-breaks as FIDE's TieBreakServer computes them
//! (`scripts/swiss-tiebreaks.py`) beside those kept, or in the directory
//! `KINGPOST_TIEBREAK_RECORDS` names.

// Each test file compiles this module on its own and uses part of it.
#![allow(dead_code)]

use kingpost_pairing::trf::{Report, RoundResult};
use serde_json::Value;

/// A simulated tournament.
pub struct Simulated {
    pub name: String,
    /// The report after the last round.
    pub report: Report,
    /// py4swiss's record of each round (`pairs`, `players`).
    pub rounds: Vec<Value>,
    /// The file of the round py4swiss could not pair, if one ended it.
    pub unpairable: Option<Report>,
}

pub fn simulated() -> Vec<Simulated> {
    simulated_in("KINGPOST_SWISS_RECORDS")
}

/// The tournaments of the directory the variable `variable` names, or
/// those kept in `tests/data/py4swiss/`.
pub fn simulated_in(variable: &str) -> Vec<Simulated> {
    let dir = match std::env::var_os(variable) {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/py4swiss"),
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "trf") {
            continue;
        }
        let report = Report::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap())
                .unwrap();
        out.push(Simulated {
            name: path.display().to_string(),
            report,
            rounds: record["rounds"].as_array().unwrap().clone(),
            unpairable: record["unpairable"]
                .as_str()
                .map(|text| Report::parse(text).unwrap()),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(out.len() >= 10, "the simulated tournaments are read");
    out
}

/// The tournament as it stood when `round` (from 1) was paired: the rounds
/// before it, and that round's absences already written.
pub fn before_round(report: &Report, round: usize) -> Report {
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

/// A round's recorded pairs: (white, black), black none for the bye.
pub fn pairs(round: &Value) -> Vec<(u32, Option<u32>)> {
    round["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| {
            let white = pair[0].as_u64().unwrap() as u32;
            let black = pair[1].as_u64().unwrap() as u32;
            (white, (black != 0).then_some(black))
        })
        .collect()
}
