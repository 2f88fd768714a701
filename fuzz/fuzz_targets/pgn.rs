//! Any PGN text is read and replayed without a panic; a game that replays
//! ends in a position whose FEN parses, and where the rules end a game no
//! move follows.
#![no_main]

use kingpost_core::{
    Position,
    pgn::{GameTexts, replay},
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for text in GameTexts::new(data).take(8) {
        let Ok(text) = text else { return };
        if let Ok(game) = replay(&text.read()) {
            let fen = game.position.fen();
            assert!(Position::from_fen(game.rules, &fen).is_ok(), "{fen}");
            if let Some(shortened) = game.shortened {
                assert_eq!(shortened.plies, game.moves.len());
                assert_eq!(game.outcome, Some(shortened.outcome));
            }
        }
    }
});
