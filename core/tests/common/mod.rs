//! Helpers shared by the core test binaries.
#![allow(dead_code)]

use std::path::PathBuf;

/// A test data file of `core/tests/data`.
pub fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One position of a perft suite with its expected counts by depth.
#[derive(Debug)]
pub struct PerftCase {
    pub id: String,
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Reads the `id`/`epd`/`perft` block format of shakmaty's `.perft` files.
pub fn read_perft_file(name: &str) -> Vec<PerftCase> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for line in data(name).lines() {
        let line = line.trim();
        if let Some(id) = line.strip_prefix("id ") {
            cases.push(PerftCase {
                id: id.to_owned(),
                fen: String::new(),
                counts: Vec::new(),
            });
        } else if let Some(fen) = line.strip_prefix("epd ") {
            cases.last_mut().expect("id before epd").fen = fen.to_owned();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let (depth, nodes) = rest.split_once(' ').expect("perft <depth> <nodes>");
            let case = cases.last_mut().expect("id before perft");
            case.counts
                .push((depth.parse().unwrap(), nodes.parse().unwrap()));
        }
    }
    cases
}

/// Reads the `FEN ;D1 n ;D2 n` format of the EPD suite.
pub fn read_epd_file(name: &str) -> Vec<PerftCase> {
    data(name)
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_owned();
            let counts = parts
                .map(|part| {
                    let (depth, nodes) = part.trim().split_once(' ').unwrap();
                    (
                        depth.trim_start_matches('D').parse().unwrap(),
                        nodes.parse().unwrap(),
                    )
                })
                .collect();
            PerftCase {
                id: format!("line {}", i + 1),
                fen,
                counts,
            }
        })
        .collect()
}
