//! Archive export: the games per second of `GET /users/{name}/games.pgn` on
//! the real `kingpost serve` (release) and its peak memory, for archives of
//! 1,000, 10,000 and 100,000 games, beside the raw database read of the same
//! rows in the same run.
//!
//! `cargo bench -p kingpost-api --bench archive` (sizes may be given:
//! `-- 1000 5000`). Memory must stay flat as the archive grows: it is
//! streamed a page at a time.

mod common;

use common::seeding::{self, sample_games, seed};

use std::{
    io::{BufRead, BufReader},
    time::Instant,
};

use common::Server;
use diesel::prelude::*;
use kingpost_api::{
    db::{DbConnection, schema::moves},
    models::game::{GameRow, MoveRow},
    server::open_database,
};

/// The server's peak resident memory (VmHWM), in MiB.
fn peak_memory_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// Streams the archive from a fresh server: games/s and peak memory.
fn export(url: &str, expected: usize) -> (f64, f64) {
    let server = Server::start(url, &[]);
    let base = &server.base;
    let client = reqwest::blocking::Client::builder()
        .timeout(None)
        .build()
        .unwrap();
    let start = Instant::now();
    let response = client
        .get(format!("{base}/users/alice/games.pgn"))
        .send()
        .unwrap();
    let games = BufReader::new(response)
        .lines()
        .filter(|line| line.as_ref().is_ok_and(|l| l.starts_with("[Event ")))
        .count();
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(games, expected);
    (games as f64 / elapsed, peak_memory_mib(server.pid()))
}

/// The raw database read of the same rows: every game and move, by pages.
fn raw_read(conn: &mut DbConnection, expected: usize) -> f64 {
    let start = Instant::now();
    let mut games = 0;
    let mut after = String::new();
    loop {
        let rows: Vec<GameRow> = kingpost_api::db::schema::games::table
            .filter(kingpost_api::db::schema::games::id.gt(&after))
            .order(kingpost_api::db::schema::games::id)
            .limit(100)
            .select(GameRow::as_select())
            .load(conn)
            .unwrap();
        let Some(last) = rows.last() else { break };
        after = last.id.to_string();
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        let moves: Vec<MoveRow> = moves::table
            .filter(moves::game_id.eq_any(&ids))
            .select(MoveRow::as_select())
            .load(conn)
            .unwrap();
        assert!(!moves.is_empty());
        games += rows.len();
    }
    assert_eq!(games, expected);
    games as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    let dir = std::env::temp_dir().join(format!("kingpost-archive-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = dir.join("archive.sqlite3").display().to_string();
    let pool = open_database(&url).unwrap();
    let mut conn = pool.get().unwrap();
    seeding::accounts(&mut conn);
    let samples = sample_games(500);
    println!("archive export (PGN, streamed) vs the raw database read of the same rows, SQLite");
    println!(
        "{:>8} {:>14} {:>14} {:>7} {:>12}",
        "games", "export/s", "raw read/s", "ratio", "peak MiB"
    );
    let mut seeded = 0;
    for size in sizes {
        seed(&mut conn, seeded, size, &samples);
        seeded = size;
        let (exported, peak) = export(&url, size);
        let raw = raw_read(&mut conn, size);
        println!(
            "{size:>8} {exported:>14.0} {raw:>14.0} {:>7.2} {peak:>12.1}",
            exported / raw
        );
    }
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
}
