//! The `standard` rule set beyond perft: FEN, starts, notation, outcomes.
//! Each test names the section of docs/spec/rules.md it checks.

mod common;

use kingpost_core::{
    CastlingNotation, Color, DrawReason, FenError, FenField, Game, Outcome, Position,
    PositionError, Role, Rules, Start, StartError, WinReason, chess960_array, shuffle_array,
};

fn pos(fen: &str) -> Position {
    Position::from_fen(Rules::Standard, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn field_error(fen: &str) -> FenField {
    match Position::from_fen(Rules::Standard, fen) {
        Err(FenError::Field { field, .. }) => field,
        other => panic!("{fen}: expected a field error, got {other:?}"),
    }
}

fn impossible(fen: &str) -> PositionError {
    match Position::from_fen(Rules::Standard, fen) {
        Err(FenError::Impossible(reason)) => reason,
        other => panic!("{fen}: expected an impossible position, got {other:?}"),
    }
}

fn play(start: Position, moves: &str) -> Game {
    let mut game = Game::new(start);
    for m in moves.split_whitespace() {
        game.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    game
}

// docs/spec/rules.md §8, extended FEN: a parse error names the field that is wrong.
#[test]
fn fen_errors_name_their_field() {
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenField::Placement
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenField::Placement
    );
    assert_eq!(
        field_error("rnbqkbnr/ppppXppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        FenField::Placement
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
        FenField::Turn
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1"),
        FenField::Castling
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1"),
        FenField::Castling
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1"),
        FenField::EnPassant
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1"),
        FenField::Halfmoves
    );
    assert_eq!(
        field_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0"),
        FenField::Fullmoves
    );
    assert!(matches!(
        Position::from_fen(Rules::Standard, "8/8/8 w"),
        Err(FenError::FieldCount { found: 2, .. })
    ));
    let message = Position::from_fen(
        Rules::Standard,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x",
    )
    .unwrap_err()
    .to_string();
    assert!(message.contains("7"), "{message}");
}

// Issue 2 / common laws: syntactically fine but impossible positions are refused with a reason.
#[test]
fn impossible_positions_are_refused() {
    assert_eq!(
        impossible("8/8/8/8/8/8/8/4K3 w - - 0 1"),
        PositionError::MissingKing(Color::Black)
    );
    assert_eq!(
        impossible("4k3/8/8/8/8/8/8/4KK2 w - - 0 1"),
        PositionError::TooManyKings(Color::White)
    );
    assert!(matches!(
        impossible("4k3/8/8/8/8/8/8/P3K3 w - - 0 1"),
        PositionError::PawnOnImpossibleSquare {
            color: Color::White,
            ..
        }
    ));
    assert!(matches!(
        impossible("4k2p/8/8/8/8/8/8/4K3 w - - 0 1"),
        PositionError::PawnOnImpossibleSquare {
            color: Color::Black,
            ..
        }
    ));
    assert_eq!(
        impossible("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"),
        PositionError::OppositeCheck(Color::Black)
    );
    assert_eq!(
        impossible("4k3/8/8/b7/8/3n4/4r3/4K3 w - - 0 1"),
        PositionError::TooManyCheckers(3)
    );
    // X-FEN `K` with no rook to castle with cannot even be read.
    assert_eq!(
        field_error("4k3/8/8/8/8/8/8/4K3 w K - 0 1"),
        FenField::Castling
    );
    // A Shredder-FEN file where no rook stands is impossible.
    assert!(matches!(
        impossible("4k3/8/8/8/8/8/8/4K2N w H - 0 1"),
        PositionError::InvalidCastlingRight {
            color: Color::White,
            ..
        }
    ));
    assert!(matches!(
        impossible("4k3/8/8/8/QQQQQQQQ/QQQQQQQQ/QQ6/4K3 w - - 0 1"),
        PositionError::TooManyUnits {
            color: Color::White,
            count: 19
        }
    ));
    assert!(matches!(
        impossible("4k3/8/8/8/8/1P6/PPPPPPPP/4K3 w - - 0 1"),
        PositionError::TooManyPawns {
            color: Color::White,
            count: 9
        }
    ));
    assert_eq!(
        impossible("4k3/8/8/8/8/8/4P3/4K3 w - e3 0 1"),
        PositionError::InvalidEnPassant("e3".parse().unwrap())
    );
    assert_eq!(
        impossible("4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1"),
        PositionError::InvalidEnPassant("e4".parse().unwrap())
    );
}

// docs/spec/rules.md §2.6, `fen` starts: units no sequence of promotions explains, and
// checks no move can give, are refused; the error names the field.
#[test]
fn unreachable_material_and_checks_are_refused() {
    // Eight pawns and seven queens: six promotions without a missing pawn.
    assert_eq!(
        impossible("k7/pp6/8/8/8/1QQQQQQQ/PPPPPPPP/4K3 w - - 0 1"),
        PositionError::UnexplainedPromotions {
            color: Color::White,
            promoted: 6,
            pawns: 8
        }
    );
    // Three knights and a second queen with six pawns: two promotions, two pawns missing.
    pos("k7/pp6/8/8/8/NNNQQ3/PPPPPP2/4K3 w - - 0 1");
    assert_eq!(
        impossible("4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1"),
        PositionError::DoubleKnightCheck
    );
    // A knight and a rook uncovered behind it: a double check a move can give.
    assert!(pos("4k3/8/3N4/8/8/8/8/4RK2 b - - 0 1").checkers().count() == 2);
    let error = Position::from_fen(Rules::Standard, "4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1")
        .unwrap_err()
        .to_string();
    assert!(error.contains("field 1 (piece placement)"), "{error}");
}

// docs/spec/rules.md §2.6, `fen` starts: a game cannot start where it is already won or
// lost, though the position can be read and has no legal moves.
#[test]
fn a_won_position_is_no_start() {
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    assert!(pos(mated).legal_moves().is_empty());
    assert_eq!(
        Position::from_start(Rules::Standard, &Start::Fen(mated.to_owned())),
        Err(StartError::AlreadyWon {
            winner: Color::Black,
            reason: WinReason::Checkmate
        })
    );
    // Stalemate is not a win: the engine refuses only games already won or
    // lost (§2.6; the server refuses any finished position for a game to be
    // played).
    assert!(
        Position::from_start(
            Rules::Standard,
            &Start::Fen("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1".to_owned())
        )
        .is_ok()
    );
}

// docs/spec/rules.md §8, extended FEN: X-FEN and Shredder-FEN castling fields are both accepted;
// output uses KQkq where that is unambiguous.
#[test]
fn xfen_and_shredder_castling() {
    let usual = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    assert_eq!(pos("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1").fen(), usual);
    assert_eq!(pos(usual).fen(), usual);
    // Two rooks on one side: the inner one needs its file.
    let inner = pos("1r2k1r1/8/8/8/8/8/8/RR2K1R1 w BGbg - 0 1");
    assert_eq!(inner.fen(), "1r2k1r1/8/8/8/8/8/8/RR2K1R1 w KBkq - 0 1");
    assert_eq!(pos(&inner.fen()).fen(), inner.fen());
}

// docs/spec/rules.md §1.2, starts: Scharnagl numbering; 518 is the usual array.
#[test]
fn chess960_arrays_match_shakmaty() {
    for n in 0..960u16 {
        let ours = chess960_array(n).unwrap();
        let theirs = shakmaty::Board::chess960(u32::from(n));
        for (file, role) in ours.iter().enumerate() {
            let square = shakmaty::Square::from_coords(
                shakmaty::File::new(file as u32),
                shakmaty::Rank::First,
            );
            assert_eq!(theirs.role_at(square), Some(*role), "array {n}");
        }
    }
    assert_eq!(
        Position::from_start(Rules::Standard, &Start::Chess960(518))
            .unwrap()
            .board(),
        Position::default().board()
    );
    assert_eq!(chess960_array(960), None);
}

// docs/spec/rules.md §1.2, starts: the 2880 shuffle arrays, `id = sp + 960 * p`, as data/shuffle2880.tsv lists them.
#[test]
fn shuffle_arrays_match_the_table() {
    let table = common::data("shuffle2880.tsv");
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("id"))
    {
        let mut cols = line.split('\t');
        let id: u16 = cols.next().unwrap().parse().unwrap();
        let array: String = shuffle_array(id)
            .unwrap()
            .iter()
            .map(|r| r.upper_char())
            .collect();
        assert_eq!(array, cols.next().unwrap(), "shuffle id {id}");
        rows += 1;
    }
    assert_eq!(rows, 2880);
    assert_eq!(shuffle_array(2880), None);
}

// docs/spec/rules.md §1.1, rule sets: `standard` accepts standard, chess960 and fen starts only.
#[test]
fn standard_refuses_other_starts() {
    assert!(matches!(
        Position::from_start(Rules::Standard, &Start::Shuffle(1000)),
        Err(StartError::NotForRules { .. })
    ));
    assert!(matches!(
        Position::from_start(Rules::Standard, &Start::Chess960(960)),
        Err(StartError::Chess960OutOfRange(960))
    ));
}

// docs/spec/rules.md §7, notation: usual-array castling is `e1g1` with alias `e1h1`; every other
// start writes king-to-rook with the king-to-destination alias where unambiguous.
#[test]
fn castling_notation_and_aliases() {
    let usual = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(
        usual.castling_notation(),
        CastlingNotation::KingToDestination
    );
    let short = usual.parse_move("e1g1").unwrap();
    assert_eq!(usual.parse_move("e1h1").unwrap(), short);
    assert_eq!(usual.parse_move("O-O").unwrap(), short);
    assert_eq!(usual.parse_move("0-0").unwrap(), short);
    assert_eq!(usual.uci(&short), "e1g1");
    assert_eq!(usual.san(&short), "O-O");
    assert_eq!(usual.san(&usual.parse_move("e1a1").unwrap()), "O-O-O");

    // King f1, rooks b1 and h1: not the usual array, so king-to-rook.
    let p = pos("4k3/8/8/8/8/8/8/1R3K1R w BH - 0 1");
    assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/1R3K1R w KQ - 0 1");
    assert_eq!(p.castling_notation(), CastlingNotation::KingToRook);
    let long = p.parse_move("f1b1").unwrap();
    assert_eq!(
        long.castling_side(),
        Some(kingpost_core::CastlingSide::QueenSide)
    );
    assert_eq!(p.uci(&long), "f1b1");
    assert_eq!(p.san(&long), "O-O-O");
    // King to destination c1 is unambiguous here: the alias stands.
    assert_eq!(p.parse_move("f1c1").unwrap(), long);
    let short = p.parse_move("f1h1").unwrap();
    assert_eq!(
        short.castling_side(),
        Some(kingpost_core::CastlingSide::KingSide)
    );
    let mut game = Game::new(p);
    game.play_unchecked(short);
    assert_eq!(
        game.position().board().role_at("g1".parse().unwrap()),
        Some(Role::King)
    );
    assert_eq!(
        game.position().board().role_at("f1".parse().unwrap()),
        Some(Role::Rook)
    );
}

// docs/spec/rules.md §7, notation: king-to-destination is only an alias where no other legal move
// has that from and to.
#[test]
fn castling_alias_yields_to_a_real_king_move() {
    // King f1, rook h1: castling h-side puts the king on g1, which the king
    // can also reach by an ordinary step.
    let p = pos("4k3/8/8/8/8/8/8/1R3K1R w BH - 0 1");
    let step = p.parse_move("f1g1").unwrap();
    assert!(matches!(
        step,
        kingpost_core::Move::Normal {
            role: Role::King,
            ..
        }
    ));
    let castle = p.parse_move("f1h1").unwrap();
    assert_eq!(
        castle.castling_side(),
        Some(kingpost_core::CastlingSide::KingSide)
    );
}

// docs/spec/rules.md §7, notation: SAN with disambiguation and suffixes.
#[test]
fn san_disambiguation_and_suffixes() {
    let p = pos("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1");
    let rook_d1 = p.parse_move("Rad1").unwrap();
    assert_eq!(p.san(&rook_d1), "Rad1");
    assert!(matches!(
        p.parse_move("Rd1"),
        Err(kingpost_core::MoveError::Ambiguous { .. })
    ));
    let q = pos("6k1/8/8/8/Q7/8/8/Q3K3 w - - 0 1");
    assert_eq!(q.san(&q.parse_move("a4a2").unwrap()), "Q4a2+");
    let r = pos("6k1/8/8/8/8/8/8/QQ2K3 w - - 0 1");
    assert_eq!(r.san(&r.parse_move("a1a2").unwrap()), "Qaa2+");
    let three = pos("5k2/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1");
    assert_eq!(three.san(&three.parse_move("a4b3").unwrap()), "Qa4b3");
    let mate = pos("k7/8/1K6/8/8/8/8/7R w - - 0 1");
    assert_eq!(mate.san(&mate.parse_move("h1h8").unwrap()), "Rh8#");
    let promo = pos("k7/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(promo.san(&promo.parse_move("e7e8q").unwrap()), "e8=Q+");
    assert!(
        promo.parse_move("e8").is_err(),
        "a promotion names its piece"
    );
}

// docs/spec/rules.md §7, notation: syntax errors are distinct from illegal moves, and an
// illegal move names the move and the position.
#[test]
fn move_errors() {
    let p = Position::default();
    assert!(matches!(
        p.parse_move("hello"),
        Err(kingpost_core::MoveError::Syntax { .. })
    ));
    let illegal = p.parse_move("e2e5").unwrap_err();
    assert!(matches!(illegal, kingpost_core::MoveError::Illegal { .. }));
    let message = illegal.to_string();
    assert!(
        message.contains("e2e5") && message.contains(&p.fen()),
        "{message}"
    );
    assert!(p.parse_move("Ke2").is_err());
}

// Common laws: en passant, and its square in the FEN only when the capture is legal.
#[test]
fn en_passant() {
    let game = play(Position::default(), "e4 a6 e5 d5");
    let p = game.position();
    assert!(p.fen().contains(" d6 "));
    let ep = p.parse_move("exd6").unwrap();
    assert!(matches!(ep, kingpost_core::Move::EnPassant { .. }));
    // No pawn to capture: the square is not written and not in the key.
    let quiet = play(Position::default(), "e4");
    assert!(quiet.position().fen().contains(" - "));
    // A pinned pawn cannot capture en passant along the rank.
    let pinned = pos("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1");
    assert!(pinned.parse_move("e5d6").is_err());
    assert!(pinned.fen().contains(" - "));
}

// Common laws: checkmate, stalemate, insufficient material.
#[test]
fn outcomes() {
    let mate = play(Position::default(), "f3 e5 g4 Qh4#");
    assert_eq!(
        mate.outcome(),
        Some(Outcome::Decisive {
            winner: Color::Black,
            reason: kingpost_core::WinReason::Checkmate
        })
    );
    let stalemate = pos("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1");
    assert_eq!(
        stalemate.outcome(),
        Some(Outcome::Draw(DrawReason::Stalemate))
    );
    for fen in [
        "k7/8/8/8/8/8/8/K7 w - - 0 1",
        "k7/8/8/8/8/8/8/KB6 w - - 0 1",
        "k7/8/8/8/8/8/8/KN6 w - - 0 1",
        "kb6/8/8/8/8/8/8/K1B5 w - - 0 1",
        "k1b5/8/8/8/8/8/8/KB1B4 w - - 0 1",
    ] {
        assert_eq!(
            pos(fen).outcome(),
            Some(Outcome::Draw(DrawReason::InsufficientMaterial)),
            "{fen}"
        );
    }
    for fen in [
        "kn6/8/8/8/8/8/8/KN6 w - - 0 1",
        "k7/8/8/8/8/8/8/KNN5 w - - 0 1",
        "kb6/8/8/8/8/8/8/KB6 w - - 0 1",
        "k7/8/8/8/8/8/P7/K7 w - - 0 1",
    ] {
        assert_eq!(pos(fen).outcome(), None, "{fen}");
    }
    // A lone knight cannot mate a lone queen (no unit can block its own king), the queen can.
    let p = pos("k7/8/8/8/8/8/8/KN5q w - - 0 1");
    assert!(p.has_insufficient_material(Color::White));
    assert!(!p.has_insufficient_material(Color::Black));
}

// docs/spec/rules.md §2.3, ends of a game: threefold and 50 moves may be claimed; fivefold and
// 75 moves draw at once.
#[test]
fn repetition_and_move_counters() {
    let shuffle = "Nf3 Nf6 Ng1 Ng8";
    let twice = play(Position::default(), shuffle);
    assert_eq!(twice.repetitions(), 2);
    assert_eq!(twice.claimable_draw(), None);
    let thrice = play(Position::default(), &[shuffle; 2].join(" "));
    assert_eq!(thrice.repetitions(), 3);
    assert_eq!(
        thrice.claimable_draw(),
        Some(DrawReason::ThreefoldRepetition)
    );
    assert_eq!(thrice.outcome(), None);
    let five = play(Position::default(), &[shuffle; 4].join(" "));
    assert_eq!(
        five.outcome(),
        Some(Outcome::Draw(DrawReason::FivefoldRepetition))
    );

    let fifty = pos("k7/8/8/8/8/8/8/KR6 w - - 100 80");
    assert_eq!(
        Game::new(fifty).claimable_draw(),
        Some(DrawReason::FiftyMoves)
    );
    let seventy_five = pos("k7/8/8/8/8/8/8/KR6 w - - 150 100");
    assert_eq!(
        seventy_five.outcome(),
        Some(Outcome::Draw(DrawReason::SeventyFiveMoves))
    );
    // Checkmate on the 150th ply still wins.
    let mated = pos("R6k/8/6K1/8/8/8/8/8 b - - 150 100");
    assert_eq!(mated.outcome().and_then(|o| o.winner()), Some(Color::White));
}

// docs/spec/rules.md §2.3, ends of a game: castling rights and en passant are part of the repeated position.
#[test]
fn castling_rights_change_the_repetition_key() {
    let with = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let without = pos("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1");
    assert_ne!(with.repetition_key(), without.repetition_key());
    let game = play(with.clone(), "Ke2 Ke7 Ke1 Ke8");
    assert_eq!(
        game.repetitions(),
        1,
        "the kings moved: the rights are gone"
    );
}

// Perft of the published positions by the brute-force route too: Kiwipete
// to depth 3 (97,862 in chessprogramming.org's table, data/shakmaty_tricky.perft).
#[test]
fn brute_force_perft_agrees_on_kiwipete() {
    let kiwipete = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    assert_eq!(common::brute_force_perft(&kiwipete, 3), 97862);
}
