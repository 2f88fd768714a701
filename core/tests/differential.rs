//! Differential tests against shakmaty for `standard`, from the usual array
//! and from Chess960 arrays: on random games, the legal moves, their UCI
//! and SAN, the FEN after every move and the end of the game agree, and
//! every FEN, SAN and UCI that kingpost writes reads back to the same thing.

use kingpost_core::{CastlingNotation, Game, Move, Position, Rules, Start};
use rand::{Rng, SeedableRng, rngs::SmallRng};
use shakmaty::{
    CastlingMode, Chess, EnPassantMode, Position as _, fen::Fen, san::SanPlus, uci::UciMove,
};

/// Plays `games` random games of up to `max_plies` from starts drawn by
/// `start`, comparing every position with shakmaty's.
fn compare_random_games(seed: u64, games: usize, max_plies: usize, chess960: bool) -> usize {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mode = CastlingMode::from_chess960(chess960);
    let mut positions = 0;
    for _ in 0..games {
        let start = if chess960 {
            Start::Chess960(rng.random_range(0..960))
        } else {
            Start::Standard
        };
        let initial = Position::from_start(Rules::Standard, &start).unwrap();
        let expected_notation = if chess960 {
            CastlingNotation::KingToRook
        } else {
            CastlingNotation::KingToDestination
        };
        assert_eq!(initial.castling_notation(), expected_notation);
        let mut theirs: Chess = initial
            .fen()
            .parse::<Fen>()
            .unwrap()
            .into_position(mode)
            .unwrap();
        let mut game = Game::new(initial);
        let pick = |n| rng.random_range(0..n);
        game.play_random(max_plies, pick, |game, _, m| {
            let pos = game.position();
            positions += 1;
            compare_position(pos, &theirs, mode);
            let uci = pos.uci(&m);
            let their_move = uci
                .parse::<UciMove>()
                .unwrap()
                .to_move(&theirs)
                .unwrap_or_else(|e| panic!("{uci} in {}: {e}", pos.fen()));
            theirs.play_unchecked(their_move);
        });
        positions += 1;
        compare_position(game.position(), &theirs, mode);
    }
    positions
}

fn compare_position(pos: &Position, theirs: &Chess, mode: CastlingMode) {
    let fen = pos.fen();
    assert_eq!(
        fen,
        Fen::from_position(theirs, EnPassantMode::Legal).to_string()
    );
    let reparsed = Position::from_fen(Rules::Standard, &fen).unwrap();
    assert_eq!(reparsed.fen(), fen, "FEN round trip");

    let legal = pos.legal_moves();
    let mut ours: Vec<(String, String)> = legal
        .iter()
        .map(|m| (pos.uci(m), pos.san_among(m, &legal)))
        .collect();
    let mut expected: Vec<(String, String)> = theirs
        .legal_moves()
        .iter()
        .map(|m| {
            let uci = UciMove::from_move(*m, mode).to_string();
            (uci, SanPlus::from_move(theirs.clone(), *m).to_string())
        })
        .collect();
    ours.sort();
    expected.sort();
    assert_eq!(ours, expected, "legal moves of {fen}");

    for (m, (uci, san)) in legal
        .iter()
        .zip(legal.iter().map(|m| (pos.uci(m), pos.san_among(m, &legal))))
    {
        assert_round_trip(pos, m, &uci);
        assert_round_trip(pos, m, &san);
    }

    assert_eq!(pos.is_check(), theirs.is_check(), "check in {fen}");
    assert_eq!(
        pos.is_insufficient_material(),
        theirs.is_insufficient_material(),
        "material in {fen}"
    );
    let mate = legal.is_empty() && pos.is_check();
    assert_eq!(mate, theirs.is_checkmate(), "checkmate in {fen}");
    assert_eq!(
        legal.is_empty() && !pos.is_check(),
        theirs.is_stalemate(),
        "stalemate in {fen}"
    );
}

fn assert_round_trip(pos: &Position, m: &Move, text: &str) {
    assert_eq!(
        pos.parse_move(text).as_ref(),
        Ok(m),
        "{text} in {}",
        pos.fen()
    );
}

#[test]
fn random_standard_games_agree_with_shakmaty() {
    assert!(compare_random_games(1, 1000, 250, false) > 50_000);
}

#[test]
fn random_chess960_games_agree_with_shakmaty() {
    assert!(compare_random_games(2, 1000, 250, true) > 50_000);
}

#[test]
#[ignore = "long: tens of thousands of games"]
fn many_random_games_agree_with_shakmaty() {
    compare_random_games(3, 20_000, 400, false);
    compare_random_games(4, 20_000, 400, true);
}
