//! Perft speed of kingpost-core against shakmaty, measured in the same run.
//!
//! `cargo bench -p kingpost-core --bench perft` prints, per position, the
//! median nodes per second of each engine over several alternating runs and
//! their ratio. The machine is shared and noisy: read the ratio, not the
//! absolute figures.

use std::time::Instant;

use kingpost_core::{Position, Rules};
use shakmaty::{CastlingMode, Chess, fen::Fen};

const RUNS: usize = 7;

struct Case {
    name: &'static str,
    rules: Rules,
    fen: &'static str,
    depth: u32,
}

const CASES: &[Case] = &[
    Case {
        name: "start position",
        rules: Rules::Standard,
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        depth: 5,
    },
    Case {
        name: "kiwipete",
        rules: Rules::Standard,
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        depth: 4,
    },
];

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Nodes per second of one run of `count`.
fn nodes_per_second(count: impl Fn() -> u64) -> (u64, f64) {
    let start = Instant::now();
    let nodes = count();
    (nodes, nodes as f64 / start.elapsed().as_secs_f64())
}

fn main() {
    println!("perft, median of {RUNS} alternating runs (Mnodes/s)");
    println!(
        "{:<16} {:>5} {:>12} {:>12} {:>12} {:>8}",
        "position", "depth", "nodes", "kingpost", "shakmaty", "ratio"
    );
    for case in CASES {
        let ours = Position::from_fen(case.rules, case.fen).expect("valid FEN");
        let mut rates = (Vec::new(), Vec::new());
        let mut nodes = 0;
        for _ in 0..RUNS {
            let (n, rate) = nodes_per_second(|| kingpost_core::perft(&ours, case.depth));
            rates.0.push(rate);
            nodes = n;
            if case.rules == Rules::Standard {
                let theirs: Chess = case
                    .fen
                    .parse::<Fen>()
                    .expect("valid FEN")
                    .into_position(CastlingMode::Chess960)
                    .expect("legal position");
                let (their_nodes, rate) = nodes_per_second(|| shakmaty::perft(&theirs, case.depth));
                assert_eq!(their_nodes, n, "both engines count the same tree");
                rates.1.push(rate);
            }
        }
        let ours = median(rates.0) / 1e6;
        if rates.1.is_empty() {
            println!(
                "{:<16} {:>5} {:>12} {:>12.1} {:>12} {:>8}",
                case.name, case.depth, nodes, ours, "-", "-"
            );
        } else {
            let theirs = median(rates.1) / 1e6;
            println!(
                "{:<16} {:>5} {:>12} {:>12.1} {:>12.1} {:>8.2}",
                case.name,
                case.depth,
                nodes,
                ours,
                theirs,
                ours / theirs
            );
        }
    }
}
