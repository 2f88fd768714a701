//! `kingpost pgn`: check or import large PGN files, and write sample games.

use std::{
    fs::File,
    io::{BufReader, IsTerminal, Write},
    time::Instant,
};

use anyhow::Context;
use kingpost_api::{
    clock::{Clock, SystemClock},
    db,
    domain::{
        accounts, collections,
        pgn::{Imported, Occurrences, index_staged, prepare_next, store_batch},
    },
    server,
};
use kingpost_core::{
    CHESS960_COUNT, Game, Position, Rules, SHUFFLE_COUNT, Start,
    pgn::{
        GameLabel, GameTexts, ImportError, ImportWarning, Shortened, replay, rules_tags,
        write_played,
    },
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

/// Counts of what became of the games, with the first refused and
/// shortened ones named.
#[derive(Default)]
struct Summary {
    read: usize,
    accepted: usize,
    duplicates: usize,
    shortened: usize,
    rejected: usize,
    windows_1252: usize,
    /// Lines naming refused and shortened games, the first `LISTED`.
    listed: Vec<String>,
    unlisted: usize,
}

impl Summary {
    /// Records game `index` (from 1): valid or stored anew (`Ok(true)`), a
    /// duplicate (`Ok(false)`), or refused.
    fn record(
        &mut self,
        index: usize,
        label: &GameLabel,
        warnings: &[ImportWarning],
        shortened: Option<&Shortened>,
        outcome: Result<bool, &ImportError>,
    ) {
        match outcome {
            Ok(true) => self.accepted += 1,
            Ok(false) => self.duplicates += 1,
            Err(_) => self.rejected += 1,
        }
        self.shortened += usize::from(shortened.is_some());
        self.windows_1252 += usize::from(warnings.contains(&ImportWarning::Windows1252));
        // A game played on past today's automatic draws is named too: kept
        // whole, but not as the rules would end it now.
        let played_on = warnings
            .iter()
            .find(|w| matches!(w, ImportWarning::RulesWouldHaveEnded { .. }));
        let line = match (outcome, shortened, played_on) {
            (Err(error), _, _) => Some(format!("  game {index} ({label}): refused: {error}")),
            (Ok(_), Some(shortened), _) => Some(format!("  game {index} ({label}): {shortened}")),
            (Ok(_), None, Some(warning)) => Some(format!("  game {index} ({label}): {warning}")),
            (Ok(_), None, None) => None,
        };
        if let Some(line) = line {
            if self.listed.len() < LISTED {
                self.listed.push(line);
            } else {
                self.unlisted += 1;
            }
        }
    }

    fn print(&self, accepted: &str, duplicates: Option<&str>) {
        let duplicates = duplicates
            .map(|word| format!(", {} {word}", self.duplicates))
            .unwrap_or_default();
        println!(
            "{} games read, {} {accepted}{duplicates}, {} shortened, {} rejected",
            self.read, self.accepted, self.shortened, self.rejected
        );
        if self.windows_1252 > 0 {
            println!(
                "  {} games were not UTF-8 and were read as Windows-1252",
                self.windows_1252
            );
        }
        for line in &self.listed {
            println!("{line}");
        }
        if self.unlisted > 0 {
            println!("  ... and {} more", self.unlisted);
        }
    }
}

fn games_of(path: &str) -> anyhow::Result<GameTexts<BufReader<File>>> {
    let file = File::open(path).with_context(|| path.to_owned())?;
    Ok(GameTexts::new(BufReader::new(file)))
}

/// Replays every game of a file under its rules; with `fens`, writes where
/// each game that replays ends.
pub fn check(path: &str, fens: Option<&str>) -> anyhow::Result<()> {
    let mut summary = Summary::default();
    let mut progress = Progress::new();
    let mut finals = String::new();
    let outcome = (|| {
        for text in games_of(path)? {
            let raw = text.with_context(|| path.to_owned())?.read();
            summary.read += 1;
            let replayed = replay(&raw);
            if let Ok(game) = &replayed {
                finals.push_str(&format!(
                    "{}\t{}\t{}\n",
                    summary.read,
                    game.moves.len(),
                    game.position.fen()
                ));
            }
            let (warnings, shortened) = match &replayed {
                Ok(game) => (game.warnings.as_slice(), game.shortened.as_ref()),
                Err(_) => (&[][..], None),
            };
            summary.record(
                summary.read,
                &raw.label(),
                warnings,
                shortened,
                replayed.as_ref().map(|_| true),
            );
            progress.update(summary.read);
        }
        Ok(())
    })();
    progress.finish(summary.read);
    summary.print("valid", None);
    if let Some(fens) = fens {
        std::fs::write(fens, finals).with_context(|| fens.to_owned())?;
    }
    outcome
}

/// Adds the positions staged by an import to the position index, saying
/// how long it took.
fn index_positions(conn: &mut db::DbConnection) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let indexed = index_staged(conn).context("indexing the games' positions")?;
    if indexed > 0 {
        eprintln!(
            "{indexed} positions indexed in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Imports every game of a file into the database. The summary is printed
/// even when the import stops early, so that every game is accounted for.
///
/// Two threads: one reads and replays the file a batch at a time, the
/// other stores each batch in one write transaction while the next is
/// read, so that the replay and the database each have a core.
pub fn import(path: &str, owner: &str, collection: &str, database_url: &str) -> anyhow::Result<()> {
    let pool = server::open_database(database_url)?;
    let mut conn = pool.get().context("database")?;
    let owner = accounts::find_by_username(&mut conn, owner)
        .with_context(|| format!("no account `{owner}`: sign up first, then import"))?
        .id;
    let into = collections::for_import(&mut conn, &owner, Some(collection), SystemClock.now())?;
    db::for_bulk_writes(&mut conn).context("database")?;
    // Positions an import stopped before its end left staged.
    index_positions(&mut conn)?;
    let mut texts = games_of(path)?;
    let mut summary = Summary::default();
    let mut progress = Progress::new();
    let mut seen = Occurrences::in_database(&mut conn)?;
    // One batch waits while one is stored: memory holds three at most.
    let (batches, prepared) = std::sync::mpsc::sync_channel(1);
    let outcome = std::thread::scope(|scope| {
        scope.spawn(move || {
            loop {
                let now = SystemClock.now();
                let (games, failure) = prepare_next(&mut texts, BATCH, &owner, now);
                let failure = failure.map(|e| anyhow::anyhow!("{path}: {e}"));
                // The file's last batch is short, or ends on a failure.
                let last = failure.is_some() || games.len() < BATCH;
                let worth_sending = !games.is_empty() || failure.is_some();
                // A send fails when the storing side has stopped (it failed).
                if worth_sending && batches.send((games, failure)).is_err() || last {
                    return;
                }
            }
        });
        // A file that cannot be read further ends its last batch.
        for (games, failure) in prepared {
            summary.read += games.len();
            let reports = store_batch(&mut conn, &games, &into, &mut seen, &db::NeverYield)?;
            for report in reports {
                let stored = summary.accepted + summary.duplicates + summary.rejected + 1;
                summary.record(
                    stored,
                    &report.label,
                    &report.warnings,
                    report.shortened.as_ref(),
                    report
                        .outcome
                        .as_ref()
                        .map(|imported| matches!(imported, Imported::New(_))),
                );
            }
            progress.update(summary.read);
            if let Some(failure) = failure {
                return Err(failure);
            }
        }
        Ok(())
    });
    progress.finish(summary.read);
    // The games stored, even by an import that stopped, are found by
    // position once their positions join the index.
    let indexed = index_positions(&mut conn);
    summary.print("imported", Some("duplicates"));
    let outcome = outcome.and(indexed);
    if outcome.is_ok() && summary.accepted > 0 {
        let started = std::time::Instant::now();
        db::refresh_statistics(&mut conn).context("refreshing the planner's statistics")?;
        eprintln!(
            "the planner's statistics refreshed in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    if outcome.is_err() {
        let unstored = summary.read - summary.accepted - summary.duplicates - summary.rejected;
        println!("  stopped early: {unstored} games read were not stored");
    }
    outcome
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
) -> anyhow::Result<()> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut finals = String::new();
    for index in 0..games {
        let start = match start {
            Some("chess960") => Start::Chess960(rng.random_range(0..CHESS960_COUNT)),
            Some("shuffle") => Start::Shuffle(rng.random_range(0..SHUFFLE_COUNT)),
            Some(text) => text.parse()?,
            None => Start::Standard,
        };
        let mut game = Game::new(Position::from_start(rules, &start)?);
        let plies = rng.random_range(10..200);
        game.play_random(plies, |n| rng.random_range(0..n), |_, _, _| {});
        let mut tags = vec![
            ("Event", "kingpost sample".to_owned()),
            ("Site", "kingpost".to_owned()),
            ("Date", "2026.11.30".to_owned()),
            ("Round", (index + 1).to_string()),
            ("White", "white".to_owned()),
            ("Black", "black".to_owned()),
            ("Result", game.result().to_owned()),
        ];
        tags.extend(rules_tags(rules, &start, game.initial(), false));
        let mut text = String::new();
        write_played(&mut text, &tags, &game, Some("2026-11-30T12:00:00Z"));
        out.write_all(text.as_bytes())?;
        finals.push_str(&game.position().fen());
        finals.push('\n');
    }
    if let Some(path) = fens {
        std::fs::write(path, finals).with_context(|| path.to_owned())?;
    }
    Ok(())
}
