//! `kingpost pgn`: check or import large PGN files, and write sample games.

use std::{
    fs::File,
    io::{BufReader, IsTerminal, Write},
    time::Instant,
};

use kingpost_api::{
    clock::{Clock, SystemClock},
    domain::pgn::{Imported, import_batch},
    server,
};
use kingpost_core::{
    Game, Position, Rules, Start,
    pgn::{GameTexts, ImportError, PgnMove, RawGame, read_game, replay, rules_tags, write_game},
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Games per transaction when importing.
const BATCH: usize = 500;
/// Rejections listed in the summary; the rest are counted.
const LISTED: usize = 20;

/// A progress line on stderr, redrawn at most ten times a second.
struct Progress {
    started: Instant,
    drawn: Instant,
    live: bool,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            started: Instant::now(),
            drawn: Instant::now(),
            live: std::io::stderr().is_terminal(),
        }
    }

    fn rate(&self, games: usize) -> f64 {
        games as f64 / self.started.elapsed().as_secs_f64().max(1e-9)
    }

    fn update(&mut self, games: usize) {
        if self.live && self.drawn.elapsed().as_millis() >= 100 {
            eprint!("\r{games} games read ({:.0} games/s)", self.rate(games));
            self.drawn = Instant::now();
        } else if !self.live && games.is_multiple_of(10_000) {
            eprintln!("{games} games read ({:.0} games/s)", self.rate(games));
        }
    }

    fn finish(&self, games: usize) {
        if self.live {
            eprint!("\r\x1b[K");
        }
        eprintln!(
            "{games} games read in {:.1} s ({:.0} games/s)",
            self.started.elapsed().as_secs_f64(),
            self.rate(games)
        );
    }
}

/// Counts of what became of the games, with the first rejections.
#[derive(Default)]
struct Summary {
    read: usize,
    accepted: usize,
    duplicates: usize,
    rejected: Vec<(usize, ImportError)>,
}

impl Summary {
    fn record(&mut self, index: usize, outcome: Result<bool, ImportError>) {
        match outcome {
            Ok(true) => self.accepted += 1,
            Ok(false) => self.duplicates += 1,
            Err(error) => self.rejected.push((index, error)),
        }
    }

    fn print(&self, accepted: &str) {
        println!(
            "{} games read, {} {accepted}, {} duplicates, {} rejected",
            self.read,
            self.accepted,
            self.duplicates,
            self.rejected.len()
        );
        for (index, error) in self.rejected.iter().take(LISTED) {
            println!("  game {index}: {error}");
        }
        if self.rejected.len() > LISTED {
            println!("  ... and {} more", self.rejected.len() - LISTED);
        }
    }
}

fn games_of(path: &str) -> Result<GameTexts<BufReader<File>>, String> {
    let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(GameTexts::new(BufReader::new(file)))
}

/// Replays every game of a file under its rules.
pub fn check(path: &str) -> Result<(), String> {
    let mut summary = Summary::default();
    let mut progress = Progress::new();
    for text in games_of(path)? {
        let text = text.map_err(|e| format!("{path}: {e}"))?;
        summary.read += 1;
        summary.record(summary.read, replay(&read_game(&text)).map(|_| true));
        progress.update(summary.read);
    }
    progress.finish(summary.read);
    summary.print("valid");
    Ok(())
}

/// Imports every game of a file into the database.
pub fn import(path: &str, database_url: &str) -> Result<(), String> {
    let pool = server::open_database(database_url)?;
    let mut conn = pool.get().map_err(|e| format!("database: {e}"))?;
    let mut summary = Summary::default();
    let mut progress = Progress::new();
    let mut batch: Vec<RawGame> = Vec::with_capacity(BATCH);
    let mut flush = |batch: &mut Vec<RawGame>, summary: &mut Summary| -> Result<(), String> {
        let first = summary.read - batch.len() + 1;
        let outcomes =
            import_batch(&mut conn, batch, None, SystemClock.now()).map_err(|e| e.to_string())?;
        for (i, outcome) in outcomes.into_iter().enumerate() {
            summary.record(
                first + i,
                outcome.map(|imported| matches!(imported, Imported::New(_))),
            );
        }
        batch.clear();
        Ok(())
    };
    for text in games_of(path)? {
        let text = text.map_err(|e| format!("{path}: {e}"))?;
        summary.read += 1;
        batch.push(read_game(&text));
        if batch.len() == BATCH {
            flush(&mut batch, &mut summary)?;
        }
        progress.update(summary.read);
    }
    flush(&mut batch, &mut summary)?;
    progress.finish(summary.read);
    summary.print("imported");
    Ok(())
}

/// Writes `games` random games of `rules` from `start` (random arrays when
/// `start` is left out for Chess960 and shuffle), and with `fens`, their
/// final positions one per line: sample data for tests and benchmarks.
pub fn sample(
    out: &mut impl Write,
    rules: Rules,
    start: Option<&str>,
    games: usize,
    seed: u64,
    fens: Option<&str>,
) -> Result<(), String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut finals = String::new();
    for index in 0..games {
        let start = match start {
            Some("chess960") => Start::Chess960(rng.random_range(0..960)),
            Some("shuffle") => Start::Shuffle(rng.random_range(0..2880)),
            Some(text) => text.parse().map_err(|e| format!("{e}"))?,
            None => Start::Standard,
        };
        let mut game = Game::new(Position::from_start(rules, &start).map_err(|e| e.to_string())?);
        let plies = rng.random_range(10..200);
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            let legal = game.position().legal_moves();
            game.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        let mut pos = game.initial().clone();
        let sans: Vec<String> = game
            .moves()
            .iter()
            .map(|m| {
                let san = pos.san(m);
                pos.play_unchecked(*m);
                san
            })
            .collect();
        let moves: Vec<PgnMove<'_>> = sans
            .iter()
            .map(|san| PgnMove {
                san,
                timestamp: Some("2026-11-30T12:00:00Z"),
            })
            .collect();
        let result = game.outcome().map_or("*", |o| o.result());
        let mut tags = vec![
            ("Event", "kingpost sample".to_owned()),
            ("Site", "kingpost".to_owned()),
            ("Date", "2026.11.30".to_owned()),
            ("Round", (index + 1).to_string()),
            ("White", "white".to_owned()),
            ("Black", "black".to_owned()),
            ("Result", result.to_owned()),
        ];
        tags.extend(rules_tags(rules, &start, game.initial()));
        let mut text = String::new();
        write_game(&mut text, &tags, game.initial(), &moves, result);
        out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        finals.push_str(&game.position().fen());
        finals.push('\n');
    }
    if let Some(path) = fens {
        std::fs::write(path, finals).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}
