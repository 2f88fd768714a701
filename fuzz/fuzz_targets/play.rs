//! Games of every rule set driven by the fuzzer's bytes: playing never
//! panics, every move's UCI and SAN read back to it, and every position's
//! FEN reads back to itself.
#![no_main]

use kingpost_core::{Game, Position, Rules, Start};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, picks)) = data.split_first() else { return };
    let rules = Rules::ALL[usize::from(choice) % Rules::ALL.len()];
    let start = match (rules, choice / 8 % 3) {
        (Rules::BunkerLeap, 0) => Start::Prechess,
        (Rules::BunkerLeap, 1) => Start::Shuffle(u16::from(choice) * 11),
        (_, 1) => Start::Chess960(u16::from(choice) * 3),
        _ => Start::Standard,
    };
    let mut game = Game::new(Position::from_start(rules, &start).expect("a start of the rule set"));
    for &pick in picks {
        if game.outcome().is_some() {
            break;
        }
        let pos = game.position().clone();
        let legal = pos.legal_moves();
        let m = legal[usize::from(pick) % legal.len()];
        assert_eq!(pos.parse_move(&pos.uci(&m)), Ok(m));
        assert_eq!(pos.parse_move(&pos.san_among(&m, &legal)), Ok(m));
        game.play_unchecked(m);
        let fen = game.position().fen();
        assert_eq!(Position::from_fen(rules, &fen).map(|p| p.fen()), Ok(fen));
    }
});
