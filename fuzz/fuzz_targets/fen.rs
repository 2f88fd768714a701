//! FEN parsing never panics; a parsed FEN writes back to a FEN that parses
//! to the same position; and a parsed FEN is a legal position of its rule
//! set (docs/spec/rules.md §2.6, `fen` starts): at most two checkers and never two
//! knights, no moves where the game is won, and every position one legal
//! move away parses too, so that play never leaves what FEN accepts.
#![no_main]

use kingpost_core::{Outcome, Position, Rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, text)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let rules = Rules::ALL[usize::from(choice) % Rules::ALL.len()];
    let Ok(pos) = Position::from_fen(rules, text) else { return };
    let fen = pos.fen();
    let again = Position::from_fen(rules, &fen).expect("a written FEN parses");
    assert_eq!(again.fen(), fen);

    let checkers = pos.checkers();
    assert!(checkers.count() <= 2, "{fen}");
    assert!(!(checkers & pos.board().knights()).more_than_one(), "{fen}");

    let legal = pos.legal_moves();
    if let Some(Outcome::Decisive { .. }) = pos.outcome() {
        assert!(legal.is_empty(), "moves after a win in {fen}");
    }
    for m in &legal {
        let mut next = pos.clone();
        next.play_unchecked(*m);
        let next_fen = next.fen();
        if let Err(e) = Position::from_fen(rules, &next_fen) {
            panic!("{fen} then {}: {next_fen} is refused: {e}", pos.uci(m));
        }
    }
});
