//! PGN import speed of kingpost-core against pgn-reader with shakmaty,
//! measured on the same standard games in the same run.
//!
//! `cargo bench -p kingpost-core --bench pgn` generates random standard
//! games as PGN in memory, then times (alternating, median of five):
//! kingpost's reader (pgn-reader for tags, its own tokens, the replay
//! under the rules with canonical UCI and SAN of every move) and the
//! baseline, pgn-reader playing each SAN on a shakmaty position.

use std::{ops::ControlFlow, time::Instant};

use kingpost_core::{
    Game, Position, Rules,
    pgn::{GameTexts, replay, write_played},
};
use pgn_reader::{Reader, SanPlus, Visitor};
use rand::{Rng, SeedableRng, rngs::SmallRng};
use shakmaty::{Chess, Position as _};

const GAMES: usize = 5_000;
const RUNS: usize = 5;

fn sample() -> String {
    let mut rng = SmallRng::seed_from_u64(42);
    let mut text = String::new();
    for _ in 0..GAMES {
        let mut game = Game::new(Position::new(Rules::Standard));
        let plies = rng.random_range(20..160);
        game.play_random(plies, |n| rng.random_range(0..n), |_, _, _| {});
        let tags = [
            ("Event", "bench".to_owned()),
            ("Result", game.result().to_owned()),
        ];
        write_played(&mut text, &tags, &game, None);
    }
    text
}

fn kingpost(text: &str) -> usize {
    let mut games = 0;
    for game in GameTexts::new(text.as_bytes()) {
        replay(&game.unwrap().read()).expect("a valid game");
        games += 1;
    }
    games
}

/// pgn-reader playing every SAN on shakmaty: the baseline.
struct Validator;

impl Visitor for Validator {
    type Tags = ();
    type Movetext = Chess;
    type Output = bool;

    fn begin_tags(&mut self) -> ControlFlow<bool> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<bool, Chess> {
        ControlFlow::Continue(Chess::default())
    }

    fn san(&mut self, pos: &mut Chess, san: SanPlus) -> ControlFlow<bool> {
        match san.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(false),
        }
    }

    fn end_game(&mut self, _pos: Chess) -> bool {
        true
    }
}

fn baseline(text: &str) -> usize {
    let mut reader = Reader::new(text.as_bytes());
    let mut games = 0;
    while let Some(valid) = reader.read_game(&mut Validator).unwrap() {
        assert!(valid);
        games += 1;
    }
    games
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn rate(count: impl Fn() -> usize) -> f64 {
    let start = Instant::now();
    let games = count();
    assert_eq!(games, GAMES);
    games as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let text = sample();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        ours.push(rate(|| kingpost(&text)));
        theirs.push(rate(|| baseline(&text)));
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "PGN import of {GAMES} standard games ({} KiB), median of {RUNS} alternating runs",
        text.len() / 1024
    );
    println!("  kingpost (read, replay, canonical UCI and SAN): {ours:>9.0} games/s");
    println!("  pgn-reader + shakmaty (validate SAN):           {theirs:>9.0} games/s");
    println!("  ratio: {:.2}", ours / theirs);
}
