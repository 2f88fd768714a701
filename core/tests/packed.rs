//! Packed moves (docs/spec/packed-moves.md): every game of every rule set
//! packs and unpacks to its moves, in a byte a move nearly always.

mod common;

use common::random_start;
use kingpost_core::{
    Game, Position, Rules, StartKind,
    packed::{
        FORMAT, IllegalMove, UnpackError, Unpacked, empty, move_numbered, number_of, numbers, pack,
        push, unpack,
    },
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// packed-moves.md, example: the game `1. e4 e5` from the usual array.
#[test]
fn the_specification_example_packs_as_written() {
    let mut game = Game::new(Position::new(Rules::Standard));
    for m in ["e4", "e5"] {
        game.play_text(m).unwrap();
    }
    let bytes = pack(game.initial(), game.moves()).unwrap();
    assert_eq!(bytes, [0x01, 0x0D, 0x08]);
    assert_eq!(unpack(game.initial(), &bytes).unwrap(), game.moves());
}

/// packed-moves.md, format 1: in random games of every rule set from every
/// kind of start, each move's number is its place in its position's legal
/// moves sorted by order key, keys are distinct, and the game unpacks to its
/// moves; a move takes one byte below 128 and two from there.
#[test]
fn random_games_of_every_rule_set_round_trip() {
    let mut rng = SmallRng::seed_from_u64(46);
    let mut moves_seen = 0;
    for rules in Rules::ALL {
        for kind in [
            StartKind::Standard,
            StartKind::Chess960,
            StartKind::Shuffle,
            StartKind::Prechess,
        ] {
            for _ in 0..12 {
                let start = random_start(kind, &mut rng).unwrap();
                let Ok(initial) = Position::from_start(rules, &start) else {
                    continue; // a start this rule set does not take
                };
                let mut game = Game::new(initial);
                let mut expected_len = 1;
                game.play_random(
                    200,
                    |n| rng.random_range(0..n),
                    |_, legal, m| {
                        let mut keys: Vec<u32> = legal.iter().map(|l| l.order_key()).collect();
                        keys.sort_unstable();
                        let before = keys.len();
                        keys.dedup();
                        assert_eq!(keys.len(), before, "keys are distinct in a position");
                        let place = keys.binary_search(&m.order_key()).unwrap();
                        expected_len += if place < 128 { 1 } else { 2 };
                    },
                );
                moves_seen += game.moves().len();
                let bytes = pack(game.initial(), game.moves()).unwrap();
                assert_eq!(bytes[0], FORMAT);
                assert_eq!(bytes.len(), expected_len, "{rules:?} from {start:?}");
                assert_eq!(unpack(game.initial(), &bytes).unwrap(), game.moves());
                // Read one at a time, each position is the game's own; a
                // move at a time, the same bytes, whose numbers read back
                // without the positions and name the moves again.
                let mut replay = Game::new(game.initial().clone());
                let mut reader = Unpacked::new(game.initial().clone(), &bytes).unwrap();
                let mut pushed = empty();
                let numbered = numbers(&bytes).unwrap();
                assert_eq!(numbered.len(), game.moves().len());
                while let Some(m) = reader.next() {
                    let m = m.unwrap();
                    let number = numbered[replay.moves().len()];
                    assert_eq!(number_of(replay.position(), &m), Some(number));
                    assert_eq!(move_numbered(replay.position(), number), Some(m));
                    assert_eq!(
                        push(&mut pushed, &replay.position().legal_moves(), &m),
                        Some(number)
                    );
                    replay.play_unchecked(m);
                    assert_eq!(reader.position().fen(), replay.position().fen());
                }
                assert_eq!(pushed, bytes);
            }
        }
    }
    assert!(moves_seen > 10_000, "{moves_seen} moves packed");
}

/// packed-moves.md, format 1: a move numbered 128 or more takes two bytes.
/// The position with the most legal moves known in chess (218) packs each of
/// them, alone, and reads it back.
#[test]
fn moves_past_127_take_two_bytes() {
    let fen = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1";
    let initial = Position::from_fen(Rules::Standard, fen).unwrap();
    let mut legal = initial.legal_moves();
    assert_eq!(legal.len(), 218);
    legal.sort_unstable_by_key(|m| m.order_key());
    for (place, m) in legal.iter().enumerate() {
        let bytes = pack(&initial, &[*m]).unwrap();
        let expected: &[u8] = if place < 128 {
            &[FORMAT, place as u8]
        } else {
            &[FORMAT, (place as u8 & 0x7f) | 0x80, 1]
        };
        assert_eq!(bytes, expected);
        assert_eq!(unpack(&initial, &bytes).unwrap(), [*m]);
    }
}

/// packed-moves.md: a move that is not legal cannot be packed, and bytes
/// that do not read as legal moves are refused, saying where.
#[test]
fn bad_moves_and_bad_bytes_are_refused() {
    let initial = Position::new(Rules::Standard);
    let mut game = Game::new(initial.clone());
    game.play_text("e4").unwrap();
    let e4 = game.moves()[0];
    assert_eq!(pack(&initial, &[e4, e4]), Err(IllegalMove { ply: 1 }));
    let mut bytes = pack(&initial, &[e4]).unwrap();
    assert_eq!(push(&mut bytes, &game.position().legal_moves(), &e4), None);
    assert_eq!(bytes, [FORMAT, 13], "a refused move leaves the bytes");
    assert_eq!(move_numbered(game.position(), 20), None);
    assert_eq!(
        numbers(&[1, 13, 0x80]),
        Err(UnpackError::Truncated { ply: 1 })
    );
    assert_eq!(numbers(&[3]), Err(UnpackError::UnknownFormat(3)));

    assert_eq!(unpack(&initial, &[]), Err(UnpackError::Empty));
    assert_eq!(
        unpack(&initial, &[2, 13]),
        Err(UnpackError::UnknownFormat(2))
    );
    assert_eq!(
        unpack(&initial, &[1, 13, 0x80]),
        Err(UnpackError::Truncated { ply: 1 })
    );
    assert_eq!(
        unpack(&initial, &[1, 13, 20]),
        Err(UnpackError::OutOfRange {
            ply: 1,
            index: 20,
            legal: 20
        })
    );
    assert_eq!(unpack(&initial, &[1]), Ok(vec![]));
}
