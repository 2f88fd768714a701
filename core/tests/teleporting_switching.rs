//! `teleporting-kings` and `switching` (docs/spec/rules.md §3, Teleporting Kings and
//! Switching). Each test names the rule it checks.

mod common;

use common::{after, check_perft, sq};
use kingpost_core::{Color, Move, Position, PositionError, Role, Rules};

fn tk(fen: &str) -> Position {
    Position::from_fen(Rules::TeleportingKings, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sw(fen: &str) -> Position {
    Position::from_fen(Rules::Switching, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn teleport_targets(pos: &Position) -> Vec<String> {
    let mut out: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter_map(|m| match m {
            Move::Teleport { to, .. } => Some(to.to_string()),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

fn switches(pos: &Position) -> Vec<String> {
    let mut out: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| matches!(m, Move::Switch { .. }))
        .map(|m| pos.uci(m))
        .collect();
    out.sort();
    out
}

// Teleporting Kings rule 3: no teleport while in check. The squares behind
// the king on the checking rook's line (f1, g1, h1) are attacked only once
// the king has left (rule 2); they are refused with the rest.
#[test]
fn teleport_refused_in_check() {
    let pos = tk("4k3/8/8/8/8/8/8/r3K3 w - - 0 1 Tt");
    assert!(pos.is_check());
    assert!(teleport_targets(&pos).is_empty());
    assert!(pos.parse_move("e1h1").is_err());
}

// Teleporting Kings rules 1, 2 and 4: empty, unattacked, not adjacent.
#[test]
fn teleport_targets_are_empty_unattacked_and_far() {
    let pos = tk("4k3/8/8/8/8/8/r7/4K2N w - - 0 1 Tt");
    let targets = teleport_targets(&pos);
    for refused in [
        "a4", "a8", // the rook's file
        "b2", "h2", // the rook's rank
        "d8", "f7", // next to the black king
        "d1", "f2", // next to the white king (ordinary king moves)
        "h1", // occupied
    ] {
        assert!(
            !targets.contains(&refused.to_owned()),
            "{refused} in {targets:?}"
        );
    }
    for allowed in ["b4", "h5", "c3", "g6"] {
        assert!(
            targets.contains(&allowed.to_owned()),
            "{allowed} not in {targets:?}"
        );
    }
    assert!(
        pos.parse_move("e1b4").unwrap()
            == Move::Teleport {
                from: sq("e1"),
                to: sq("b4")
            }
    );
    assert_eq!(pos.san(&pos.parse_move("e1b4").unwrap()), "Kb4");
    assert_eq!(
        pos.parse_move("Kb4").unwrap(),
        pos.parse_move("e1b4").unwrap()
    );
}

// Teleporting Kings rule 4: a king move onto a legal castling destination is
// that castling, and keeps the teleport.
#[test]
fn castling_destination_is_castling() {
    let pos = tk("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Tt");
    let targets = teleport_targets(&pos);
    assert!(!targets.contains(&"g1".to_owned()) && !targets.contains(&"c1".to_owned()));
    let castled = after(&pos, "e1g1");
    assert!(
        castled.has_right(Color::White),
        "castling keeps the teleport"
    );
    assert_eq!(castled.fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1 Tt");
}

// Teleporting Kings: when castling to a square is illegal (here f1 is
// attacked, so O-O is), a teleport there is allowed; it spends the teleport
// and every castling right.
#[test]
fn teleport_onto_destination_of_illegal_castling() {
    let pos = tk("r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1 Tt");
    let m = pos.parse_move("e1g1").unwrap();
    assert_eq!(
        m,
        Move::Teleport {
            from: sq("e1"),
            to: sq("g1")
        }
    );
    assert_eq!(pos.san(&m), "Kg1");
    let next = after(&pos, "e1g1");
    assert_eq!(next.fen(), "r3kr2/8/8/8/8/8/8/R5KR b q - 1 1 t");
    assert!(!next.has_right(Color::White));
}

// Teleporting Kings: a teleport spends all castling rights for good, and
// there is no second teleport.
#[test]
fn castling_and_second_teleport_refused_after_teleport() {
    let pos = tk("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Tt");
    let pos = after(&pos, "e1e4");
    let pos = after(&pos, "a8b8");
    // Back home by ordinary steps: still no castling, no teleport.
    let pos = after(
        &after(&after(&after(&after(&pos, "e4e3"), "b8a8"), "e3e2"), "a8b8"),
        "e2e1",
    );
    let pos = after(&pos, "b8a8");
    assert_eq!(
        pos.castling_rooks() & kingpost_core::Bitboard::from_rank(kingpost_core::Rank::First),
        kingpost_core::Bitboard::EMPTY
    );
    assert!(teleport_targets(&pos).is_empty());
    assert!(pos.parse_move("O-O").is_err());
    assert!(pos.fen().ends_with(" t"));
}

// docs/spec/rules.md §8, extended FEN: field 7 `Tt`; without it, teleports are unspent;
// teleport rights are part of the repeated position.
#[test]
fn teleport_rights_in_fen_and_repetition_key() {
    let fresh = tk("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(fresh.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 Tt");
    let spent = tk("4k3/8/8/8/8/8/8/4K3 w - - 0 1 t");
    assert_ne!(fresh.repetition_key(), spent.repetition_key());
    assert_eq!(
        tk("4k3/8/8/8/8/8/8/4K3 w - - 0 1 -").fen(),
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 -"
    );
    assert!(
        Position::from_fen(Rules::TeleportingKings, "4k3/8/8/8/8/8/8/4K3 w - - 0 1 X").is_err()
    );
    assert!(Position::from_fen(Rules::Standard, "4k3/8/8/8/8/8/8/4K3 w - - 0 1 Tt").is_err());
}

// Switching rule 2: no switch while in check.
#[test]
fn no_switch_in_check() {
    let pos = sw("4k3/8/8/8/8/8/4r3/3NKB2 w - - 0 1");
    assert!(pos.is_check());
    assert!(switches(&pos).is_empty());
}

// Switching rule 2: a switch may not leave the mover's king in check. Units
// only exchange squares, so that happens when the king moves onto an attacked one.
#[test]
fn no_switch_that_exposes_the_king() {
    let pos = sw("4kr2/8/8/8/8/8/8/3NKB2 w - - 0 1");
    assert!(!pos.is_check());
    assert_eq!(switches(&pos), vec!["d1e1"]);
}

// Switching rule 1: only units of different kinds switch; any of the eight
// directions.
#[test]
fn same_kind_switches_absent() {
    let pos = sw("4k3/8/8/8/8/8/PP6/RR2K3 w - - 0 1");
    assert_eq!(switches(&pos), vec!["a1a2", "a1b2", "b1a2", "b1b2"]);
}

// Switching rule 3: a pawn on its first rank steps one or two squares, and
// the two-step allows en passant on rank 2; the FEN reads that square.
#[test]
fn pawn_on_first_rank_and_en_passant() {
    let pos = sw("4k3/8/8/8/8/1p6/8/P3K3 w - - 0 1");
    let moves = pos.legal_moves();
    assert!(moves.iter().any(|m| pos.uci(m) == "a1a2"));
    let double = after(&pos, "a1a3");
    assert_eq!(double.fen(), "4k3/8/8/8/8/Pp6/8/4K3 b - a2 0 1");
    assert_eq!(sw(&double.fen()).fen(), double.fen());
    assert!(
        Position::from_fen(Rules::Standard, &double.fen()).is_err(),
        "standard has no pawns on rank 1 to pass rank 2"
    );
    let captured = after(&double, "b3a2");
    assert_eq!(captured.fen(), "4k3/8/8/8/8/8/p7/4K3 w - - 0 2");
    // A pawn switched back onto its second rank steps two again.
    let back = sw("4k3/8/8/8/8/8/N7/P3K3 w - - 0 1");
    let back = after(&back, "a1a2");
    assert_eq!(back.board().role_at(sq("a2")), Some(Role::Pawn));
}

// Switching rule 4: a pawn switched onto its last rank promotes, each choice
// a separate move; a promoting switch resets the 50-move counter (rule 7).
#[test]
fn promotion_by_switch() {
    let pos = sw("1N2k3/P7/8/8/8/8/8/4K3 w - - 7 30");
    assert_eq!(switches(&pos), vec!["a7b8b", "a7b8n", "a7b8q", "a7b8r"]);
    let m = pos.parse_move("a7b8q").unwrap();
    assert_eq!(pos.san(&m), "a7b8=Q+");
    assert_eq!(pos.parse_move("b8a7q").unwrap(), m, "either order");
    let next = after(&pos, "a7b8q");
    assert_eq!(next.fen(), "1Q2k3/N7/8/8/8/8/8/4K3 b - - 0 30");
}

// docs/spec/rules.md §7, notation: the seed's switch form `S` takes a promotion as the
// canonical forms do.
#[test]
fn switch_alias_with_promotion() {
    let pos = sw("1N2k3/P7/8/8/8/8/8/4K3 w - - 7 30");
    let queen = pos.parse_move("a7b8q").unwrap();
    for text in ["Sa7b8=Q", "Sb8a7=Q", "Sa7b8Q", "Sa7b8=Q+"] {
        assert_eq!(pos.parse_move(text), Ok(queen), "{text}");
    }
    assert_eq!(pos.parse_move("Sa7b8=N"), pos.parse_move("a7b8n"));
    assert!(
        pos.parse_move("Sa7b8").is_err(),
        "the promotion must be named"
    );
    assert!(pos.parse_move("Sa7b8=K").is_err());
}

// docs/spec/rules.md §2.6, `fen` starts: a teleport spends every castling right, so a
// castling right beside a spent teleport is refused.
#[test]
fn castling_with_the_teleport_spent_is_refused() {
    assert_eq!(
        Position::from_fen(
            Rules::TeleportingKings,
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 t"
        ),
        Err(PositionError::ContradictoryCastlingRight {
            color: Color::White,
            square: sq("a1"),
            reason: "the teleport is spent, and a teleport spends every castling right",
        }
        .into())
    );
    tk("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1 t");
}

// Switching rule 5: a king switch spends both castling rights, a rook
// switch off its square that rook's; rule 7: a switch is reversible.
#[test]
fn castling_rights_after_switches() {
    let pos = sw("r3k2r/8/8/8/8/8/8/RN2KB1R w KQkq - 3 10");
    let rook = after(&pos, "a1b1");
    assert_eq!(rook.fen(), "r3k2r/8/8/8/8/8/8/NR2KB1R b Kkq - 4 10");
    let king = pos.parse_move("e1f1").unwrap();
    assert_eq!(pos.uci(&king), "f1e1", "the non-king square first");
    assert_eq!(pos.san(&king), "Bf1e1");
    let king = after(&pos, "f1e1");
    assert_eq!(king.fen(), "r3k2r/8/8/8/8/8/8/RN2BK1R b kq - 4 10");
}

// Switching rule 6: castling and a king-rook switch giving the same position
// are both legal and distinct; a king-first pair naming a legal castling is
// that castling.
#[test]
fn castling_and_equivalent_switch_are_distinct() {
    let pos = sw("4k3/8/8/8/8/8/8/5KR1 w G - 0 1");
    let castle = pos.parse_move("f1g1").unwrap();
    assert!(matches!(castle, Move::Castle { .. }));
    let switch = pos.parse_move("g1f1").unwrap();
    assert!(matches!(switch, Move::Switch { .. }));
    assert_eq!(pos.san(&castle), "O-O");
    assert_eq!(pos.san(&switch), "Rg1f1");
    let (mut a, mut b) = (pos.clone(), pos.clone());
    a.play_unchecked(castle);
    b.play_unchecked(switch);
    assert_eq!(a.fen(), b.fen());
}

// The seed example: the switch b8-c8 mates, written `Rb8c8#`; `Sb8c8` is read.
#[test]
fn seed_example_switch_mates() {
    let pos = sw("1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1");
    let m = pos.parse_move("Sb8c8").unwrap();
    assert_eq!(pos.san(&m), "Rb8c8#");
    assert_eq!(pos.uci(&m), "b8c8");
    assert_eq!(pos.parse_move("Rb8c8#").unwrap(), m);
    assert_eq!(pos.parse_move("c8b8").unwrap(), m);
    let mated = after(&pos, "b8c8");
    assert_eq!(mated.outcome().and_then(|o| o.winner()), Some(Color::White));
}

/// Perft counts kept as regression tests, each also counted by the
/// brute-force route up to `brute_depth`.
// Counts at depths 1 to 4, each matched by the brute-force route to the
// depth given. Depth 1 counted by hand:
// - usual array: 20 moves + 24 teleports (ranks 3 to 5; rank 6 is attacked
//   by the pawns);
// - r3k2r/8/8/8/8/8/8/R3K2R: 26 moves + 31 teleports (58 empty squares
//   less 5 next to the king, c1 and g1 where castling is legal, and 20
//   attacked by the rooks and the king).
// Where the figures come from: docs/spec/rules.md §2.4.
#[test]
fn perft_teleporting_kings() {
    let cases: &[(&str, [u64; 4], u32)] = &[
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 Tt",
            [44, 1730, 54888, 1679722],
            3,
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Tt",
            [57, 2904, 117827, 4351033],
            3,
        ),
        (
            "r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1 Tt",
            [57, 2964, 113758, 4028630],
            3,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 Tt",
            [56, 2808, 155097, 7582220],
            2,
        ),
        (
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1 Tt",
            [44, 1730, 55890, 1740609],
            3,
        ),
    ];
    for (fen, counts, brute_depth) in cases {
        check_perft(&tk(fen), counts, *brute_depth);
    }
}

// Depth 1 counted by hand:
// - usual array: 20 moves + 29 switches (7 pairs on the back rank, 22
//   piece-pawn pairs);
// - the seed position: 3 king, 8 rook and 7 bishop moves + the switch b8c8;
// - 1N2k3/P7: 5 king, 3 knight moves, 4 promotions on a8, 4 by switch on b8;
// - 4k3/8/8/8/8/1p6/8/P3K3: 5 king moves, a1a2 and a1a3;
// - 5KR1: 4 king, 8 rook moves, castling, and the switch with the same result.
// Where the figures come from: docs/spec/rules.md §2.4.
#[test]
fn perft_switching() {
    let cases: &[(&str, [u64; 4], u32)] = &[
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            [49, 2399, 120020, 5978377],
            2,
        ),
        (
            "1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1",
            [19, 120, 2637, 23066],
            4,
        ),
        ("1N2k3/P7/8/8/8/8/8/4K3 w - - 0 1", [16, 63, 1063, 5726], 4),
        ("4k3/8/8/8/8/1p6/8/P3K3 w - - 0 1", [7, 44, 350, 2992], 4),
        ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", [14, 61, 1102, 6089], 4),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            [65, 3871, 247690, 14336397],
            2,
        ),
        (
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
            [47, 2190, 104434, 4928171],
            2,
        ),
    ];
    for (fen, counts, brute_depth) in cases {
        check_perft(&sw(fen), counts, *brute_depth);
    }
}
