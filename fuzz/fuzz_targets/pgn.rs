//! Any PGN text is read and replayed without a panic; a game that replays
//! ends in a position whose FEN parses.
#![no_main]

use kingpost_core::{
    Position,
    pgn::{GameTexts, read_game, replay},
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for text in GameTexts::new(data).take(8) {
        let Ok(text) = text else { return };
        if let Ok(game) = replay(&read_game(&text)) {
            let fen = game.position.fen();
            assert!(Position::from_fen(game.rules, &fen).is_ok(), "{fen}");
        }
    }
});
