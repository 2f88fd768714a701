//! The generation of the moves to a few squares (what a reader of a move's
//! text asks for) against the whole generation, which perft proves: for
//! every square of positions of every rule set and start, the same moves
//! in the same order.

mod common;

use common::read_perft_file;
use kingpost_core::{Game, MoveList, Position, Rules, Square, Start, Wanted};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Compares every square's and the castling moves' generation with the
/// whole list filtered; returns how many moves were compared.
fn check(pos: &Position) -> usize {
    let all = pos.legal_moves();
    let mut admitted = 0;
    let mut wanted = MoveList::new();
    let asks = Square::ALL
        .into_iter()
        .map(Wanted::to)
        .chain([Wanted::CASTLING, Wanted::ALL]);
    for ask in asks {
        pos.wanted_moves_into(ask, &mut wanted);
        let expected: Vec<_> = all.iter().filter(|m| ask.admits(m)).copied().collect();
        assert_eq!(wanted.as_slice(), expected, "{ask:?} in {}", pos.fen());
        if ask != Wanted::ALL {
            admitted += expected.len();
        }
    }
    // Every legal move is asked for by its landing square or as castling.
    assert!(
        admitted >= all.len(),
        "a move no ask admits in {}",
        pos.fen()
    );
    all.len()
}

fn random_games(rules: Rules, start: impl Fn(&mut SmallRng) -> Start, games: usize) -> usize {
    let mut rng = SmallRng::seed_from_u64(rules as u64);
    let mut compared = 0;
    for _ in 0..games {
        let start = start(&mut rng);
        let mut game = Game::new(Position::from_start(rules, &start).unwrap());
        let pick = |n| rng.random_range(0..n);
        game.play_random(120, pick, |game, _, _| compared += check(game.position()));
        compared += check(game.position());
    }
    compared
}

#[test]
fn every_rule_set_from_every_start() {
    for rules in Rules::ALL {
        for &kind in rules.starts() {
            let compared = random_games(
                rules,
                // A FEN start's games begin from the usual array here.
                |rng| common::random_start(kind, rng).unwrap_or(Start::Standard),
                6,
            );
            assert!(compared > 1_000, "{rules} {kind:?}: {compared} moves");
        }
    }
}

#[test]
fn the_tricky_perft_positions() {
    let mut compared = 0;
    for case in read_perft_file("shakmaty_tricky.perft") {
        // Two positions kingpost refuses (see perft_suites.rs).
        if let Ok(pos) = Position::from_fen(Rules::Standard, &case.fen) {
            compared += check(&pos);
        }
    }
    assert!(compared > 500, "{compared}");
}
