//! What the position index and the explorer's counts cost an import:
//! games stored through the import path (replayed beforehand, so that only
//! storing is timed) into a fresh database, their staged positions and
//! counts then added to the index and the counts (as an HTTP import does
//! at its end), against the same left staged, rounds alternating, on
//! SQLite and, when `KINGPOST_TEST_DATABASE_URL` is set, on Postgres
//! (schemas of their own, dropped after).
//!
//! `cargo bench -p kingpost-api --bench import_index` (a count of games and
//! one database may be given: `-- 20000 sqlite`).

use std::time::Instant;

use diesel::RunQueryDsl;

use kingpost_api::{
    db::{DbPool, NeverYield, Yield},
    domain::{
        accounts, collections,
        pgn::{Occurrences, ReadGame, index_staged_in_steps, prepare_game, store_batch},
    },
    server::open_database,
};
use kingpost_core::{
    Game, Position, Rules,
    pgn::{read_game, write_played},
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

const ROUNDS: usize = 3;
/// Games a write transaction stores, as an HTTP import does.
const BATCH: usize = 50;

/// Random standard games of 40 to 120 plies as PGN, each its own event.
fn sample_pgn(count: usize) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(5);
    (0..count)
        .map(|i| {
            let mut game = Game::new(Position::new(Rules::Standard));
            let plies = rng.random_range(40..120);
            game.play_random(plies, |n| rng.random_range(0..n), |_, _, _| {});
            let mut out = String::new();
            let tags = [
                ("Event", format!("bench {i}")),
                ("Result", game.result().to_owned()),
            ];
            write_played(&mut out, &tags, &game, None);
            out
        })
        .collect()
}

/// Bulk work told to yield at its first chance, as when a request always
/// waits for the writers' turn.
struct AlwaysYield;

impl Yield for AlwaysYield {
    fn now(&self) -> bool {
        true
    }
}

/// Stores `texts` (read and replayed beforehand, so that only storing is
/// timed) into an account's import collection in `pool`, a batch of
/// [`BATCH`] a call as an HTTP import does, each call told by `yielding`
/// when to end; then, if `add`, adds their staged positions and counts to
/// the index and the explorer in steps as an HTTP import does before it
/// answers. The milliseconds of each step, storing and adding.
fn import(
    pool: &DbPool,
    texts: &[String],
    yielding: &dyn Yield,
    add: bool,
) -> (Vec<f64>, Vec<f64>) {
    let mut conn = pool.get().unwrap();
    let owner = accounts::create(&mut conn, "bench".into(), "-".into(), 0)
        .unwrap()
        .id;
    let into = collections::for_import(&mut conn, &owner, None, 0).unwrap();
    let read: Vec<ReadGame> = texts
        .iter()
        .map(|text| prepare_game(&read_game(text), &owner, 0))
        .collect();
    let (mut storing, mut adding) = (Vec::new(), Vec::new());
    let mut seen = Occurrences::default();
    let mut from = 0;
    while from < read.len() {
        let batch = &read[from..read.len().min(from + BATCH)];
        let start = Instant::now();
        from += store_batch(&mut conn, batch, &into, &mut seen, yielding)
            .unwrap()
            .len();
        storing.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let mut done = !add;
    while !done {
        let start = Instant::now();
        done = index_staged_in_steps(&mut conn, yielding).unwrap();
        adding.push(start.elapsed().as_secs_f64() * 1e3);
    }
    (storing, adding)
}

/// Games stored per second into `pool`, their positions and counts added
/// to the index and the explorer, or left staged.
fn games_per_second(pool: &DbPool, texts: &[String], indexed: bool) -> f64 {
    let (storing, adding) = import(pool, texts, &NeverYield, indexed);
    let milliseconds: f64 = storing.iter().chain(&adding).sum();
    texts.len() as f64 / (milliseconds / 1e3)
}

/// How long one step of an HTTP import holds SQLite's writers' turn when a
/// request always waits for it: the steps storing games and the steps
/// adding their staged rows, each with its commit; a move waits for at most
/// one of them.
fn steps_when_writers_wait(pool: &DbPool, texts: &[String]) {
    let (storing, adding) = import(pool, texts, &AlwaysYield, true);
    for (name, mut steps) in [("storing", storing), ("adding", adding)] {
        steps.sort_by(f64::total_cmp);
        let at = |q: f64| steps[((steps.len() - 1) as f64 * q).round() as usize];
        println!(
            "{name:>9} steps  {:>5}  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>6.2} ms",
            steps.len(),
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Rounds of a fresh database with the indexes and one without, in turn.
fn run(name: &str, fresh: &mut dyn FnMut(usize) -> DbPool, texts: &[String]) {
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        with.push(games_per_second(&fresh(2 * round), texts, true));
        without.push(games_per_second(&fresh(2 * round + 1), texts, false));
        eprintln!(
            "{name}: round {} of {ROUNDS}: {:.0} / {:.0} games/s",
            round + 1,
            with[round],
            without[round]
        );
    }
    let (with, without) = (median(with), median(without));
    println!(
        "{name:>9} {:>6} games  with the index {with:>7.0} games/s  without {without:>7.0} games/s  ({:.2} of it)",
        texts.len(),
        with / without
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = args.iter().find_map(|a| a.parse().ok()).unwrap_or(5_000);
    let only = |name: &str| {
        !args.iter().any(|a| a == "sqlite" || a == "postgres") || args.iter().any(|a| a == name)
    };
    let texts = sample_pgn(count);
    println!(
        "games stored per second (median of {ROUNDS} rounds), and the rate with the index as a share of the rate without"
    );
    if only("sqlite") {
        let dir =
            std::env::temp_dir().join(format!("kingpost-import-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut fresh = |n: usize| {
            open_database(
                &dir.join(format!("import-{n}.sqlite3"))
                    .display()
                    .to_string(),
            )
            .unwrap()
        };
        run("sqlite", &mut fresh, &texts);
        println!("one step of an HTTP import while requests wait for the writers' turn:");
        steps_when_writers_wait(&fresh(2 * ROUNDS), &texts);
        let _ = std::fs::remove_dir_all(&dir);
    }
    if let Some(base) = std::env::var("KINGPOST_TEST_DATABASE_URL")
        .ok()
        .filter(|_| only("postgres"))
    {
        let admin = open_database(&base).unwrap();
        let mut schemas = Vec::new();
        let mut fresh = |n: usize| {
            let schema = format!("bench_import_{}_{n}", std::process::id());
            diesel::sql_query(format!("CREATE SCHEMA {schema}"))
                .execute(&mut **admin.get().unwrap())
                .unwrap();
            schemas.push(schema.clone());
            let separator = if base.contains('?') { '&' } else { '?' };
            open_database(&format!(
                "{base}{separator}options=-csearch_path%3D{schema}"
            ))
            .unwrap()
        };
        run("postgres", &mut fresh, &texts);
        for schema in schemas {
            diesel::sql_query(format!("DROP SCHEMA {schema} CASCADE"))
                .execute(&mut **admin.get().unwrap())
                .unwrap();
        }
    }
}
