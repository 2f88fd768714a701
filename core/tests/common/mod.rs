//! Helpers shared by the core test binaries.
#![allow(dead_code)]

use std::path::PathBuf;

/// A test data file of `core/tests/data`.
pub fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One position of a perft suite with its expected counts by depth.
#[derive(Debug)]
pub struct PerftCase {
    pub id: String,
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Reads the `id`/`epd`/`perft` block format of shakmaty's `.perft` files.
pub fn read_perft_file(name: &str) -> Vec<PerftCase> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for line in data(name).lines() {
        let line = line.trim();
        if let Some(id) = line.strip_prefix("id ") {
            cases.push(PerftCase {
                id: id.to_owned(),
                fen: String::new(),
                counts: Vec::new(),
            });
        } else if let Some(fen) = line.strip_prefix("epd ") {
            cases.last_mut().expect("id before epd").fen = fen.to_owned();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let (depth, nodes) = rest.split_once(' ').expect("perft <depth> <nodes>");
            let case = cases.last_mut().expect("id before perft");
            case.counts
                .push((depth.parse().unwrap(), nodes.parse().unwrap()));
        }
    }
    cases
}

/// Reads the `FEN ;D1 n ;D2 n` format of the EPD suite.
pub fn read_epd_file(name: &str) -> Vec<PerftCase> {
    data(name)
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_owned();
            let counts = parts
                .map(|part| {
                    let (depth, nodes) = part.trim().split_once(' ').unwrap();
                    (
                        depth.trim_start_matches('D').parse().unwrap(),
                        nodes.parse().unwrap(),
                    )
                })
                .collect();
            PerftCase {
                id: format!("line {}", i + 1),
                fen,
                counts,
            }
        })
        .collect()
}

use kingpost_core::{CHESS960_COUNT, Game, Move, Position, Rules, SHUFFLE_COUNT, Start, StartKind};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Perft by an independent route: every pseudo-legal move is played and
/// kept only if the mover's king is then safe.
pub fn brute_force_perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    brute_force_legal(pos)
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            brute_force_perft(&child, depth - 1)
        })
        .sum()
}

/// The legal moves by the brute-force route.
pub fn brute_force_legal(pos: &Position) -> Vec<Move> {
    pos.pseudo_legal_moves()
        .into_iter()
        .filter(|m| pos.is_legal_by_trial(*m))
        .collect()
}

/// A start of `kind` drawn at random (an array of Chess960 or shuffle);
/// none for a FEN start, which has no positions of its own to draw.
pub fn random_start(kind: StartKind, rng: &mut SmallRng) -> Option<Start> {
    match kind {
        StartKind::Standard => Some(Start::Standard),
        StartKind::Chess960 => Some(Start::Chess960(rng.random_range(0..CHESS960_COUNT))),
        StartKind::Shuffle => Some(Start::Shuffle(rng.random_range(0..SHUFFLE_COUNT))),
        StartKind::Prechess => Some(Start::Prechess),
        StartKind::Fen => None,
    }
}

/// Checks, at every position of `games` random games of `rules` from starts
/// drawn by `start`: the legal moves are the brute-force ones; every move's
/// UCI and SAN read back to it; the FEN reads back to the same FEN; the
/// repetition key the game keeps as it goes is the position's, computed
/// whole (docs/spec/rules.md §2.3, ends of a game: what a repetition compares).
/// Returns the number of positions checked.
pub fn check_random_games(
    rules: Rules,
    seed: u64,
    games: usize,
    max_plies: usize,
    start: impl Fn(&mut SmallRng) -> Start,
) -> usize {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut positions = 0;
    for _ in 0..games {
        let initial = Position::from_start(rules, &start(&mut rng)).unwrap();
        let mut game = Game::new(initial);
        let mut check = |game: &Game| {
            let pos = game.position();
            positions += 1;
            check_position(pos);
            assert_eq!(
                game.repetition_key(),
                pos.repetition_key(),
                "the key kept move by move is the position's own, in {}",
                pos.fen()
            );
        };
        game.play_random(
            max_plies,
            |n| rng.random_range(0..n),
            |game, _, _| check(game),
        );
        check(&game);
    }
    positions
}

fn check_position(pos: &Position) {
    let fen = pos.fen();
    let reparsed = Position::from_fen(pos.rules(), &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(reparsed.fen(), fen, "FEN round trip");
    assert_eq!(reparsed.repetition_key(), pos.repetition_key(), "{fen}");

    let legal = pos.legal_moves();
    let mut sorted: Vec<String> = legal.iter().map(|m| format!("{m:?}")).collect();
    let mut brute: Vec<String> = brute_force_legal(pos)
        .iter()
        .map(|m| format!("{m:?}"))
        .collect();
    sorted.sort();
    brute.sort();
    assert_eq!(
        sorted, brute,
        "legal moves = pseudo-legal moves that leave the king safe, in {fen}"
    );

    for m in &legal {
        for text in [pos.uci(m), pos.san_among(m, &legal)] {
            assert_eq!(pos.parse_move(&text).as_ref(), Ok(m), "{text} in {fen}");
        }
    }
}

/// A square by name.
pub fn sq(name: &str) -> kingpost_core::Square {
    name.parse().unwrap()
}

/// The position after `text` (UCI or SAN), which must be legal in `pos`.
pub fn after(pos: &Position, text: &str) -> Position {
    let m = pos
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.fen()));
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

/// Perft of `pos` to each depth of `counts`, checked by brute force (every
/// pseudo-legal move played and its legality asked) to `brute_depth`.
pub fn check_perft(pos: &Position, counts: &[u64], brute_depth: u32) {
    for (depth, &expected) in (1..).zip(counts) {
        assert_eq!(
            kingpost_core::perft(pos, depth),
            expected,
            "{} {} depth {depth}",
            pos.rules(),
            pos.fen()
        );
        if depth <= brute_depth {
            assert_eq!(
                brute_force_perft(pos, depth),
                expected,
                "brute force, {} depth {depth}",
                pos.fen()
            );
        }
    }
}
