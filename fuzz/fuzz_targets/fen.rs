//! FEN parsing never panics, and a parsed FEN writes back to a FEN that
//! parses to the same position.
#![no_main]

use kingpost_core::{Position, Rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, text)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let rules = Rules::ALL[usize::from(choice) % Rules::ALL.len()];
    if let Ok(pos) = Position::from_fen(rules, text) {
        let fen = pos.fen();
        let again = Position::from_fen(rules, &fen).expect("a written FEN parses");
        assert_eq!(again.fen(), fen);
        let _ = pos.legal_moves();
        let _ = pos.outcome();
    }
});
