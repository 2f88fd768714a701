//! `captive-kings` and `bunker-leap` with its Shuffle and Pre-chess starts
//! (docs/spec/rules.md §5, Captive Kings and King to Bunker Leap). Each test names the
//! rule it checks.

mod common;

use common::{after, check_perft, sq};
use kingpost_core::{Color, Move, Outcome, Position, PositionError, Rules, Start, WinReason};

fn ck(fen: &str) -> Position {
    Position::from_fen(Rules::CaptiveKings, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn bl(fen: &str) -> Position {
    Position::from_fen(Rules::BunkerLeap, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn ucis(pos: &Position) -> Vec<String> {
    let mut out: Vec<String> = pos.legal_moves().iter().map(|m| pos.uci(m)).collect();
    out.sort();
    out
}

// docs/spec/rules.md §1.2, starts: for captive-kings the array is set up and the kings exchange squares.
#[test]
fn captive_kings_start() {
    let pos = Position::new(Rules::CaptiveKings);
    assert_eq!(
        pos.fen(),
        "rnbqKbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQkBNR w KQkq - 0 1 Cc"
    );
    let c960 = Position::from_start(Rules::CaptiveKings, &Start::Chess960(0)).unwrap();
    assert_eq!(
        c960.fen(),
        "bbqnnrKr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRkR w KQkq - 0 1 Cc"
    );
    assert_eq!(Rules::CaptiveKings.pgn_name(true), "Captive Kings 960");
}

// Captive Kings rule 1: attacks on a captive king count for nothing; its side
// may leave it attacked, the opponent may attack it freely, without `+`.
#[test]
fn attacks_on_a_captive_king_are_ignored() {
    let pos = ck("r3K3/8/8/8/8/8/P7/4k3 w - - 0 1 Cc");
    assert!(!pos.is_check());
    assert!(
        pos.parse_move("a3").is_ok(),
        "White may leave the king attacked"
    );
    let pos = ck("4K3/7r/8/8/8/8/P7/4k3 b - - 0 1 Cc");
    let m = pos.parse_move("h7h8").unwrap();
    assert_eq!(pos.san(&m), "Rh8", "no check mark");
    assert!(!after(&pos, "h7h8").is_check());
}

// Captive Kings rule 2: the first move is a step to an empty square, never a
// capture, onto a square not attacked once the king has left.
#[test]
fn captive_king_first_move() {
    let pos = ck("r3K3/3p4/8/8/8/8/8/4k3 w - - 0 1 Cc");
    // d8 is on the rook's rank, and f8 too once the king has left e8; d7
    // holds a pawn (no capture); e7 and f7 are free.
    assert_eq!(ucis(&pos), vec!["e8e7", "e8f7"]);
    let freed = after(&pos, "e8e7");
    assert!(!freed.has_right(Color::White));
    assert!(freed.fen().ends_with(" c"));
}

// Captive Kings rule 2: once free, the king can be checked and mated.
#[test]
fn free_king_can_be_checked_and_mated() {
    let pos = ck("r3K3/8/8/8/8/8/8/4k3 w - - 0 1 Cc");
    let free = after(&pos, "e8e7");
    let check = after(&free, "a8a7");
    assert!(check.is_check());
    assert_eq!(free.san(&free.parse_move("a8a7").unwrap()), "Ra7+");
    let mated = ck("8/8/r7/r6K/r7/8/8/4k3 w - - 0 1 c");
    assert_eq!(
        mated.outcome(),
        Some(Outcome::Decisive {
            winner: Color::Black,
            reason: WinReason::Checkmate
        })
    );
}

// Captive Kings rule 1: the kings are never on adjacent squares, captive or free.
#[test]
fn kings_never_adjacent() {
    let free = ck("8/8/8/8/8/3K4/8/4k3 w - - 0 1 c");
    assert_eq!(
        ucis(&free),
        vec!["d3c2", "d3c3", "d3c4", "d3d4", "d3e3", "d3e4"]
    );
    let captive = ck("8/8/8/8/8/8/2K5/4k3 b - - 0 1 c");
    assert_eq!(ucis(&captive), vec!["e1e2", "e1f1", "e1f2"]);
    assert_eq!(
        Position::from_fen(Rules::CaptiveKings, "8/8/8/8/8/8/3K4/4k3 w - - 0 1 c"),
        Err(PositionError::KingsAdjacent.into())
    );
}

// Captive Kings rule 3: castling with the enemy king, with no condition on
// attacked squares, leaves that king captive and spends the castler's rights.
#[test]
fn castling_with_the_enemy_king() {
    let pos = ck("r3Kr2/8/8/8/8/8/8/R3k2R w KQq - 0 1 Cc");
    let castle = pos.parse_move("O-O").unwrap();
    assert_eq!(
        castle,
        Move::Castle {
            king: sq("e1"),
            rook: sq("h1")
        }
    );
    assert_eq!(pos.uci(&castle), "e1g1");
    assert_eq!(
        after(&pos, "e1g1").fen(),
        "r3Kr2/8/8/8/8/8/8/R4Rk1 b q - 1 1 Cc"
    );
    let long = after(&pos, "e1c1");
    assert_eq!(long.fen(), "r3Kr2/8/8/8/8/8/8/2kR3R b q - 1 1 Cc");
    // The enemy king's own first move takes the castler's rights with it.
    let black = ck("r3Kr2/8/8/8/8/8/8/R3k2R b KQq - 0 1 Cc");
    assert_eq!(
        after(&black, "e1d2").fen(),
        "r3Kr2/8/8/8/8/8/3k4/R6R w q - 1 2 C"
    );
}

// Captive Kings rule 4: the side whose free king reaches its first rank wins at once (`#`).
#[test]
fn goal_rank_wins() {
    let pos = ck("8/8/8/8/8/8/3K4/6k1 w - - 0 1 c");
    let m = pos.parse_move("d2d1").unwrap();
    assert_eq!(pos.san(&m), "Kd1#");
    assert_eq!(
        after(&pos, "Kd1").outcome(),
        Some(Outcome::Decisive {
            winner: Color::White,
            reason: WinReason::GoalRank
        })
    );
}

// docs/spec/rules.md §2.4: a position the rule set has declared won has no
// legal moves, and perft counts none below it.
#[test]
fn no_moves_after_a_goal_rank_win() {
    let won = ck("8/8/8/4k3/8/8/8/2K5 b - - 1 1 -");
    assert!(won.legal_moves().is_empty());
    assert!(won.pseudo_legal_moves().is_empty());
    assert_eq!(won.outcome().and_then(|o| o.winner()), Some(Color::White));
    // Depth 2 by hand: of the king's 8 steps, b1, c1 and d1 win at once;
    // after b2, b3, c3, d2 and d3 the black king has 8, 8, 7, 8 and 6.
    check_perft(&ck("8/8/8/4k3/8/8/2K5/8 w - - 0 1 -"), &[8, 37], 2);
    assert!(
        Position::from_start(
            Rules::CaptiveKings,
            &Start::Fen("8/8/8/4k3/8/8/8/2K5 b - - 1 1 -".to_owned())
        )
        .is_err(),
        "no game starts where it is already won"
    );
}

// Captive Kings rule 4 and docs/spec/rules.md §2.6, `fen` starts: a free king on its goal
// rank with its side to move, or both kings home, cannot arise; a castling
// right stands only while the enemy king is captive (rule 3).
#[test]
fn unreachable_captive_kings_positions_are_refused() {
    let refused = |fen: &str| Position::from_fen(Rules::CaptiveKings, fen).unwrap_err();
    assert_eq!(
        refused("8/8/8/4k3/8/8/8/2K5 w - - 1 1 -"),
        PositionError::GameAlreadyEnded(
            "White's free king stands on its goal rank with White to move: White won when it arrived"
        )
        .into()
    );
    assert_eq!(
        refused("4k3/8/8/8/8/8/8/2K5 b - - 0 1 -"),
        PositionError::GameAlreadyEnded(
            "both free kings stand on their goal ranks: the game ended when the first arrived"
        )
        .into()
    );
    // White's castling right with the black king free on e1, in X-FEN and Shredder-FEN.
    for castling in ["K", "H"] {
        let error = refused(&format!("4K3/8/8/8/8/8/8/4k2R w {castling} - 0 1 C"));
        assert_eq!(
            error,
            PositionError::ContradictoryCastlingRight {
                color: Color::White,
                square: sq("h1"),
                reason: "in Captive Kings a side castles with the enemy king, which must still be \
                         captive, and it is free",
            }
            .into(),
            "{castling}"
        );
        assert!(error.to_string().contains("field 3 (castling)"), "{error}");
    }
    ck("4K3/8/8/8/8/8/8/4k2R w K - 0 1 Cc");
}

// King to Bunker Leap: a leap spent means the king has moved, so no castling
// right stands beside it.
#[test]
fn bunker_castling_with_the_leap_spent_is_refused() {
    assert_eq!(
        Position::from_fen(Rules::BunkerLeap, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 l"),
        Err(PositionError::ContradictoryCastlingRight {
            color: Color::White,
            square: sq("a1"),
            reason: "the leap is spent, so the king has moved and cannot castle",
        }
        .into())
    );
    bl("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1 l");
}

// Captive Kings rule 4: no draw by insufficient material; a lone king can race.
#[test]
fn no_insufficient_material() {
    let pos = ck("8/8/8/3K4/8/8/8/4k3 w - - 0 1 c");
    assert_eq!(pos.outcome(), None);
    assert!(!pos.has_insufficient_material(Color::White));
    assert!(!pos.has_insufficient_material(Color::Black));
}

// Bunker Leap, castling: a-side to b/c, h-side to g/f, written king-to-rook;
// a leap to b1 is a different move from the a-side castling.
#[test]
fn bunker_castling_files() {
    let pos = bl("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Ll");
    assert_eq!(
        after(&pos, "e1a1").fen(),
        "r3k2r/8/8/8/8/8/8/1KR4R b kq - 1 1 l"
    );
    assert_eq!(
        after(&pos, "O-O").fen(),
        "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1 l"
    );
    assert_eq!(
        pos.parse_move("e1b1").unwrap(),
        Move::Leap {
            from: sq("e1"),
            to: sq("b1")
        }
    );
    assert_eq!(
        pos.parse_move("O-O-O").unwrap(),
        pos.parse_move("e1a1").unwrap()
    );
}

// Bunker Leap rules 1 to 3: own units are jumped; the leap spends the leap
// and the castling rights (the king has moved).
#[test]
fn leap_over_own_units() {
    let pos = bl("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1 Ll");
    let m = pos.parse_move("e1g1").unwrap();
    assert_eq!(
        m,
        Move::Leap {
            from: sq("e1"),
            to: sq("g1")
        }
    );
    assert_eq!(pos.san(&m), "Kg1");
    assert_eq!(
        after(&pos, "Kg1").fen(),
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQ1BKR b kq - 1 1 l"
    );
}

// Bunker Leap rule 2: no enemy unit between; rule 3: no crossed or landing
// square attacked, an own unit's square included, and not in check.
#[test]
fn leap_refusals() {
    let over_enemy = bl("4k3/8/8/8/8/8/8/R3Kn1R w KQ - 0 1 Ll");
    assert!(over_enemy.parse_move("e1g1").is_err());
    assert!(over_enemy.parse_move("e1b1").is_ok());
    let crossed = bl("2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 Ll");
    assert!(crossed.parse_move("e1b1").is_err());
    assert!(crossed.parse_move("e1g1").is_ok());
    let landing = bl("6r1/4k3/8/8/8/8/8/R3K2R w KQ - 0 1 L");
    assert!(landing.parse_move("e1g1").is_err());
    let shielded = bl("3rk3/8/8/8/8/8/8/R2NK2R w KQ - 0 1 Ll");
    assert!(
        shielded.parse_move("e1b1").is_err(),
        "d1 counts though a knight stands there"
    );
    let check = bl("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1 Ll");
    assert!(check.is_check());
    assert!(
        !check
            .legal_moves()
            .iter()
            .any(|m| matches!(m, Move::Leap { .. }))
    );
}

// Bunker Leap: only a king that has never moved leaps; castling counts as a move.
#[test]
fn leap_only_before_the_king_moves() {
    let pos = bl("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Ll");
    let moved = after(&after(&after(&after(&pos, "e1e2"), "e8e7"), "e2e1"), "e7e8");
    assert_eq!(moved.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3 -");
    assert!(moved.parse_move("e1b1").is_err());
    let castled = after(&after(&pos, "O-O"), "e8d8");
    assert!(!castled.has_right(Color::White));
}

// Bunker Leap, castling: when both rooks stand on one side of the king only
// the farther may castle; a fresh shuffle array gives only it the right.
#[test]
fn only_the_farther_rook_castles() {
    // A right of the nearer rook is refused in a FEN (docs/spec/rules.md §2.6, `fen` starts)...
    assert_eq!(
        Position::from_fen(Rules::BunkerLeap, "4k3/8/8/8/8/8/8/1KR4R w C - 0 1 Ll"),
        Err(PositionError::ContradictoryCastlingRight {
            color: Color::White,
            square: sq("c1"),
            reason: "only the farther of two rooks on one side of the king may castle",
        }
        .into())
    );
    // ...and voided in play once another rook stands beyond it, for good.
    let alone = bl("4k3/8/8/8/8/8/7R/1KR5 w C - 0 1 Ll");
    let beyond = after(&alone, "h2h1");
    assert_eq!(beyond.fen(), "4k3/8/8/8/8/8/8/1KR4R b - - 1 1 Ll");
    let gone_again = after(&after(&beyond, "Kd8"), "h1h2");
    assert!(
        !gone_again
            .legal_moves()
            .iter()
            .any(|m| matches!(m, Move::Castle { .. }))
    );
    let far = bl("4k3/8/8/8/8/8/2R5/1K5R w H - 0 1 Ll");
    assert_eq!(
        after(&far, "O-O").fen(),
        "4k3/8/8/8/8/8/2R5/5RK1 b - - 1 1 l"
    );
    let shuffle = Position::from_start(Rules::BunkerLeap, &Start::Shuffle(1000)).unwrap();
    assert_eq!(
        shuffle.fen(),
        "nbnqbkrr/pppppppp/8/8/8/8/PPPPPPPP/NBNQBKRR w Kk - 0 1 Ll"
    );
    assert_eq!(shuffle.castling_rooks().count(), 2);
    assert!(shuffle.castling_rooks().contains(sq("h1")));
}

// Bunker Leap rule 4: a leap giving the same position as a legal castling is
// that castling, listed once.
#[test]
fn leap_equal_to_castling_is_castling() {
    let pos = bl("4k3/8/8/8/8/8/8/4KR2 w F - 0 1 Ll");
    let to_g1: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| match *m {
            Move::Castle { .. } => true,
            other => other
                .from_to()
                .is_some_and(|(from, to)| from == sq("e1") && to == sq("g1")),
        })
        .collect();
    assert_eq!(
        to_g1,
        vec![Move::Castle {
            king: sq("e1"),
            rook: sq("f1")
        }]
    );
    assert_eq!(pos.parse_move("e1g1").unwrap(), to_g1[0]);
    assert_eq!(pos.uci(&to_g1[0]), "e1f1");
}

// Pre-chess placement: White first, only placements until all sixteen are
// made, then castling and leap rights of the resulting array.
#[test]
fn prechess_placement() {
    let start = Position::from_start(Rules::BunkerLeap, &Start::Prechess).unwrap();
    assert_eq!(
        start.fen(),
        "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1 -"
    );
    assert_eq!(start.legal_moves().len(), 40);
    assert!(
        start.parse_move("e2e4").is_err(),
        "no board move before the placements"
    );
    assert!(
        start.parse_move("K@e2").is_err(),
        "only on one's own first rank"
    );
    let mut pos = start;
    for (i, m) in "R@a1 R@a8 N@b1 N@b8 B@c1 B@c8 Q@d1 Q@d8 K@e1 K@e8 B@f1 B@f8 N@g1 N@g8 R@h1 R@h8"
        .split(' ')
        .enumerate()
    {
        assert_eq!(
            pos.turn(),
            if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            }
        );
        let placed = pos.parse_move(m).unwrap();
        assert_eq!(pos.san(&placed), m);
        pos.play_unchecked(placed);
    }
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 9 Ll"
    );
    assert!(pos.parse_move("e4").is_ok());
}

// Pre-chess placement: a placement that makes opposite-coloured bishops
// impossible is illegal. White's bishop stands on a1 (dark); h1 is the last
// light square left, so only the bishop may go there.
#[test]
fn prechess_bishop_look_ahead() {
    let pos = bl("qrbn4/pppppppp/8/8/8/8/PPPPPPPP/BQ1R1R2[KBNNkrbn] w - - 0 5 -");
    assert_eq!(
        ucis(&pos),
        vec!["B@h1", "K@c1", "K@e1", "K@g1", "N@c1", "N@e1", "N@g1"]
    );
}

// Pre-chess placement: holdings that cannot be what the placement left are refused.
#[test]
fn prechess_holdings_in_fen() {
    assert_eq!(
        Position::from_fen(
            Rules::BunkerLeap,
            "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQkq] w - - 0 1 -"
        ),
        Err(PositionError::InvalidHoldings.into())
    );
    assert!(
        Position::from_fen(
            Rules::Standard,
            "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1"
        )
        .is_err()
    );
    assert!(
        Position::from_fen(
            Rules::BunkerLeap,
            "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn b - - 0 1 -"
        )
        .is_err()
    );
}

/// Perft counts kept as regression tests, each matched by the brute-force
/// route up to `brute_depth`.
// Depth 1 by hand:
// - usual array: 20 (the captive kings' neighbours are all occupied);
// - r3Kr2/.../R3k2R: rook a1 10, rook h1 9, captive king to d7 or e7,
//   castling both ways with the black king (f1 attacked, no matter);
// - 3K4 free against a captive king far away: 8 king steps.
// Where the figures come from: docs/spec/rules.md §2.4.
#[test]
fn perft_captive_kings() {
    let cases: &[(&str, &[u64], u32)] = &[
        (
            "rnbqKbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQkBNR w KQkq - 0 1 Cc",
            &[20, 402, 8861, 195263],
            3,
        ),
        (
            "r3Kr2/8/8/8/8/8/8/R3k2R w KQq - 0 1 Cc",
            &[23, 495, 11591, 268579],
            4,
        ),
        (
            "r3K2r/pppppppp/8/8/8/8/PPPPPPPP/R3k2R w KQkq - 0 1 Cc",
            &[23, 535, 12128, 277517],
            3,
        ),
        ("8/8/8/3K4/8/8/8/4k3 w - - 0 1 c", &[8, 40, 304, 1947], 4),
        (
            "bbqnnrKr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRkR w KQkq - 0 1 Cc",
            &[20, 400, 8894, 197312],
            3,
        ),
    ];
    for (fen, counts, brute_depth) in cases {
        check_perft(&ck(fen), counts, *brute_depth);
    }
}

// Depth 1 by hand:
// - R3Kn1R: king 4, rooks 10 and 9, the a-side castling, the leap to b1
//   (the knight on f1 bars g1);
// - 4KR2: king 4, rook 9, castling with the rook on f1, the leap to b1
//   (the leap to g1 is that castling);
// - Pre-chess: 5 kinds of unit on 8 squares; depth 3 = 40 x (16 x 28 for
//   K, Q first + 16 x 35 for R, N first + 8 x 32 for B first) = 50560.
// Where the figures come from: docs/spec/rules.md §2.4.
#[test]
fn perft_bunker_leap() {
    let cases: &[(&str, &[u64], u32)] = &[
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 Ll",
            &[20, 400, 8982, 200857],
            3,
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Ll",
            &[28, 666, 16689, 390417],
            3,
        ),
        (
            "4k3/8/8/8/8/8/8/R3Kn1R w KQ - 0 1 Ll",
            &[25, 235, 6063, 53889],
            4,
        ),
        (
            "4k3/8/8/8/8/8/8/4KR2 w F - 0 1 Ll",
            &[15, 66, 1178, 6295],
            4,
        ),
        (
            "1k4rr/8/8/8/8/8/2R5/1K5R w Hh - 0 1 Ll",
            &[30, 567, 15314, 359642],
            4,
        ),
        (
            "qrbn4/pppppppp/8/8/8/8/PPPPPPPP/BQ1R1R2[KBNNkrbn] w - - 0 5 -",
            &[7, 98, 420, 2880],
            4,
        ),
    ];
    for (fen, counts, brute_depth) in cases {
        check_perft(&bl(fen), counts, *brute_depth);
    }
    let starts: &[(Start, &[u64])] = &[
        (Start::Prechess, &[40, 1600, 50560, 1597696]),
        (Start::Shuffle(1000), &[19, 361, 7733, 165126]),
        (Start::Shuffle(2000), &[20, 400, 8906, 196479]),
        (Start::Shuffle(0), &[20, 400, 9006, 201143]),
    ];
    for (start, counts) in starts {
        check_perft(
            &Position::from_start(Rules::BunkerLeap, start).unwrap(),
            counts,
            3,
        );
    }
}
