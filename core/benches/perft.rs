//! Perft speed of kingpost-core against shakmaty, measured in the same run.
//!
//! `cargo bench -p kingpost-core --bench perft` prints, per position, the
//! median nodes per second of each engine over several alternating runs and
//! their ratio. shakmaty knows only standard chess: for a variant, its
//! baseline is standard chess from the usual array at the same depth, so the
//! ratio says what the variant's rules cost against plain chess. The machine
//! is shared and noisy: read the ratio, not the absolute figures.

use std::time::Instant;

use kingpost_core::{Position, Rules};
use shakmaty::{CastlingMode, Chess, fen::Fen};

const RUNS: usize = 7;
const USUAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

struct Case {
    name: &'static str,
    rules: Rules,
    fen: &'static str,
    depth: u32,
}

/// The cases of a rule set. A match, so that a new rule set does not
/// build until it has its cases.
fn cases(rules: Rules) -> Vec<Case> {
    let case = |name, fen, depth| Case {
        name,
        rules,
        fen,
        depth,
    };
    match rules {
        Rules::Standard => vec![
            case("start position", USUAL, 5),
            case(
                "kiwipete",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                4,
            ),
        ],
        Rules::TeleportingKings => vec![case("teleporting-kings", USUAL, 4)],
        Rules::Switching => vec![case("switching", USUAL, 4)],
        Rules::CaptiveKings => vec![case(
            "captive-kings",
            "rnbqKbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQkBNR w KQkq - 0 1 Cc",
            4,
        )],
        Rules::BunkerLeap => vec![
            case("bunker-leap", USUAL, 4),
            case(
                "pre-chess",
                "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1 -",
                4,
            ),
        ],
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The leaf count and the nodes per second of one run of `count`.
fn timed(count: impl Fn() -> u64) -> (u64, f64) {
    let start = Instant::now();
    let nodes = count();
    (nodes, nodes as f64 / start.elapsed().as_secs_f64())
}

fn main() {
    println!("perft, median of {RUNS} alternating runs (Mnodes/s)");
    println!(
        "{:<18} {:>5} {:>12} {:>10} {:>10} {:>7}  baseline",
        "position", "depth", "nodes", "kingpost", "shakmaty", "ratio"
    );
    for case in Rules::ALL.into_iter().flat_map(cases) {
        let ours = Position::from_fen(case.rules, case.fen).expect("valid FEN");
        let same_tree = case.rules == Rules::Standard;
        let baseline_fen = if same_tree { case.fen } else { USUAL };
        let theirs: Chess = baseline_fen
            .parse::<Fen>()
            .expect("valid FEN")
            .into_position(CastlingMode::Chess960)
            .expect("legal position");

        let (mut our_rates, mut their_rates, mut nodes) = (Vec::new(), Vec::new(), 0);
        for _ in 0..RUNS {
            let (n, rate) = timed(|| kingpost_core::perft(&ours, case.depth));
            let (their_nodes, their_rate) = timed(|| shakmaty::perft(&theirs, case.depth));
            if same_tree {
                assert_eq!(their_nodes, n, "both engines count the same tree");
            }
            our_rates.push(rate);
            their_rates.push(their_rate);
            nodes = n;
        }
        let (ours, theirs) = (median(our_rates) / 1e6, median(their_rates) / 1e6);
        println!(
            "{:<18} {:>5} {:>12} {:>10.1} {:>10.1} {:>7.2}  {}",
            case.name,
            case.depth,
            nodes,
            ours,
            theirs,
            ours / theirs,
            if same_tree {
                "same position"
            } else {
                "standard, usual array"
            }
        );
    }
}
