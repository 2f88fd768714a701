//! The study archive's searches: the latency of a position search's first
//! page and of the explorer, for positions taken from the stored games,
//! beside a game read by its primary key in the same run, over archives of
//! 10,000 and 100,000 games (random games, a few hundred distinct ones
//! repeated, so that each position has many games), on SQLite and, when
//! `KINGPOST_TEST_DATABASE_URL` is set, on Postgres (in a schema of its
//! own, dropped after).
//!
//! `cargo bench -p kingpost-api --bench search` (sizes and one database
//! may be given: `-- 1000000 postgres`). Postgres's statistics are brought
//! up to date after seeding (`ANALYZE`), as its autovacuum would; SQLite's
//! planner works without them, as the service runs it.

mod common;

use std::time::Instant;

use common::seeding::{self, Sample, sample_games, seed};
use diesel::RunQueryDsl;
use kingpost_api::{
    db::{DbConnection, DbPool},
    domain::search::{self, Scope, Target},
    models::game,
    server::open_database,
};
use kingpost_core::{Position, Rules};
use rand::{Rng, SeedableRng, rngs::SmallRng};

const SAMPLES: usize = 200;

/// The median and 99th percentile of `times`, in ms.
fn p50_p99(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// Times `run` on each of `inputs`, in ms.
fn timed<T>(inputs: &[T], mut run: impl FnMut(&T)) -> (f64, f64) {
    let times = inputs
        .iter()
        .map(|input| {
            let start = Instant::now();
            run(input);
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    p50_p99(times)
}

/// Positions the stored games reached, as FENs: from the opening (shared by
/// many games) to the middlegame (by few).
fn positions(samples: &[Sample], rng: &mut SmallRng) -> Vec<String> {
    (0..SAMPLES)
        .map(|_| {
            let moves = &samples[rng.random_range(0..samples.len())].moves;
            let plies = rng.random_range(1..moves.len().min(40));
            let mut pos = Position::new(Rules::Standard);
            for (uci, _, _) in &moves[..plies] {
                let m = pos.parse_move(uci).unwrap();
                pos.play_unchecked(m);
            }
            pos.fen()
        })
        .collect()
}

fn measure(name: &str, conn: &mut DbConnection, size: usize, fens: &[String], rng: &mut SmallRng) {
    let ids: Vec<String> = (0..SAMPLES)
        .map(|_| format!("bench{:08}", rng.random_range(0..size)))
        .collect();
    let (key_50, key_99) = timed(&ids, |id| {
        game::find(conn, &id.as_str().into())
            .unwrap()
            .expect("a seeded game");
    });
    let (search_50, search_99) = timed(fens, |fen| {
        let page = search::positions(
            conn,
            None,
            Rules::Standard,
            &Target::Fen(fen.clone()),
            Scope::Visible,
            None,
            20,
        )
        .unwrap();
        assert!(!page.games.is_empty(), "a stored position is found");
    });
    let (explore_50, explore_99) = timed(fens, |fen| {
        let view = search::explore(
            conn,
            None,
            Rules::Standard,
            &Target::Fen(fen.clone()),
            Scope::Visible,
        )
        .unwrap();
        assert!(view.games > 0, "a position a stored game left is counted");
    });
    println!(
        "{name:>9} {size:>8}  by key {key_50:>6.2} / {key_99:>6.2}  search {search_50:>6.2} / {search_99:>6.2} ({:>5.1}x)  explorer {explore_50:>6.2} / {explore_99:>6.2} ({:>5.1}x)",
        search_50 / key_50,
        explore_50 / key_50,
    );
}

fn run(name: &str, pool: &DbPool, sizes: &[usize], samples: &[Sample]) {
    let mut conn = pool.get().unwrap();
    seeding::accounts(&mut conn);
    let mut rng = SmallRng::seed_from_u64(11);
    let fens = positions(samples, &mut rng);
    let mut seeded = 0;
    for &size in sizes {
        let start = Instant::now();
        seed(&mut conn, seeded, size, samples);
        eprintln!(
            "{name}: {} games seeded in {:.1} s",
            size - seeded,
            start.elapsed().as_secs_f64()
        );
        seeded = size;
        if name == "postgres" {
            diesel::sql_query("ANALYZE").execute(&mut **conn).unwrap();
        }
        measure(name, &mut conn, size, &fens, &mut rng);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes = seeding::growing_sizes(&args, &[10_000, 100_000]);
    let only = |name: &str| common::wants_database(&args, name);
    let samples = sample_games(500);
    println!("p50 / p99 in ms, and the median's ratio to a read by primary key");
    let dir = std::env::temp_dir().join(format!("kingpost-search-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = dir.join("search.sqlite3").display().to_string();
    if only("sqlite") {
        run("sqlite", &open_database(&url).unwrap(), &sizes, &samples);
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(base) = std::env::var("KINGPOST_TEST_DATABASE_URL")
        .ok()
        .filter(|_| only("postgres"))
    {
        let schema = format!("bench_search_{}", std::process::id());
        let admin = open_database(&base).unwrap();
        let create = format!("CREATE SCHEMA {schema}");
        diesel::sql_query(create)
            .execute(&mut **admin.get().unwrap())
            .unwrap();
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{schema}");
        run("postgres", &open_database(&url).unwrap(), &sizes, &samples);
        let drop = format!("DROP SCHEMA {schema} CASCADE");
        diesel::sql_query(drop)
            .execute(&mut **admin.get().unwrap())
            .unwrap();
    }
}
