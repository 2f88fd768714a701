//! Move text in any notation never panics the parsers, and a move they
//! read writes back (UCI and SAN) to text that reads as the same move.
#![no_main]

use kingpost_core::{Position, Rules};
use libfuzzer_sys::fuzz_target;

/// Positions of a rule set rich in its own moves. A match, so that a new
/// rule set does not build until it has its positions.
fn positions(rules: Rules) -> &'static [&'static str] {
    match rules {
        Rules::Standard => &["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"],
        Rules::TeleportingKings => &["r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Tt"],
        Rules::Switching => &["1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1"],
        Rules::CaptiveKings => &["r3Kr2/8/8/8/8/8/8/R3k2R w KQq - 0 1 Cc"],
        Rules::BunkerLeap => &[
            "4k3/8/8/8/8/8/8/R3Kn1R w KQ - 0 1 Ll",
            "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1 -",
        ],
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, text)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let all: Vec<(Rules, &str)> = Rules::ALL
        .into_iter()
        .flat_map(|rules| positions(rules).iter().map(move |fen| (rules, *fen)))
        .collect();
    let (rules, fen) = all[usize::from(choice) % all.len()];
    let pos = Position::from_fen(rules, fen).expect("a fixed legal position");
    if let Ok(m) = pos.parse_move(text) {
        assert_eq!(pos.parse_move(&pos.uci(&m)), Ok(m));
        assert_eq!(pos.parse_move(&pos.san(&m)), Ok(m));
    }
});
