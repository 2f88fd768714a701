//! Archive export: the games per second of `GET /users/{name}/games.pgn` on
//! the real `kingpost serve` (release) and its peak memory, for archives of
//! 1,000, 10,000 and 100,000 games, beside the raw database read of the same
//! rows in the same run.
//!
//! `cargo bench -p kingpost-api --bench archive` (sizes may be given:
//! `-- 1000 5000`). Memory must stay flat as the archive grows: it is
//! streamed a page at a time. To tell what bounds the export, its two
//! halves are also timed alone, in process: reading the pages
//! (`pgn::read_archive`) and writing them (`pgn::write_archive`); the
//! server overlaps the two. And the CPU time a game, from `/proc`: of the
//! server and of the client (this process) during the export, and of
//! this process during the raw read.

mod common;

use common::seeding::{self, sample_games, seed};

use std::{
    hint::black_box,
    io::{BufRead, BufReader},
    time::{Duration, Instant},
};

use common::{
    Server,
    process::{cpu_time, status_mib},
};
use diesel::prelude::*;
use kingpost_api::{
    db::DbConnection,
    domain::pgn::{ArchiveFormat, read_archive, write_archive},
    models::game::{ArchiveFilter, GameRow},
    server::open_database,
};

/// What the export cost: its rate, the server's peak memory, and the CPU
/// time a game of the server and of the client reading the stream.
struct Export {
    rate: f64,
    peak_mib: f64,
    server_us: f64,
    client_us: f64,
}

/// Streams the archive from a fresh server.
fn export(url: &str, expected: usize) -> Export {
    let server = Server::start(url, &[]);
    let base = &server.base;
    let pid = server.pid().to_string();
    let (server_before, client_before) = (cpu_time(&pid), cpu_time("self"));
    let client = reqwest::blocking::Client::builder()
        .timeout(None)
        .build()
        .unwrap();
    let start = Instant::now();
    let response = client
        .get(format!("{base}/users/alice/games.pgn"))
        .send()
        .unwrap();
    // Read as a client saving the file would, a line at a time into one
    // buffer: the client shares the two cores with the server.
    let mut reader = BufReader::with_capacity(1 << 16, response);
    let (mut games, mut line) = (0, Vec::new());
    while reader.read_until(b'\n', &mut line).unwrap() > 0 {
        games += usize::from(line.starts_with(b"[Event "));
        line.clear();
    }
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(games, expected);
    let per_game = |spent: Duration| spent.as_secs_f64() * 1e6 / games as f64;
    Export {
        rate: games as f64 / elapsed,
        peak_mib: status_mib(server.pid(), "VmHWM:"),
        server_us: per_game(cpu_time(&pid) - server_before),
        client_us: per_game(cpu_time("self") - client_before),
    }
}

/// The raw database read of the same rows: every game with its moves, by
/// pages;
/// games/s and the CPU time a game (SQLite runs in this process).
fn raw_read(conn: &mut DbConnection, expected: usize) -> (f64, f64) {
    let start = Instant::now();
    let cpu_before = cpu_time("self");
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
        assert!(rows.iter().all(|row| row.moves.len() > 1));
        games += rows.len();
    }
    assert_eq!(games, expected);
    let cpu_us = (cpu_time("self") - cpu_before).as_secs_f64() * 1e6 / games as f64;
    (games as f64 / start.elapsed().as_secs_f64(), cpu_us)
}

/// The export's halves alone: its reads of every page and its writing of
/// them, each in games/s.
fn halves(conn: &mut DbConnection, expected: usize) -> (f64, f64) {
    let filter = ArchiveFilter {
        account_id: "alice".into(),
        rules: None,
        since: None,
        until: None,
        finished_only: false,
    };
    let (mut reading, mut writing) = (Duration::ZERO, Duration::ZERO);
    let (mut games, mut after) = (0, None);
    loop {
        let start = Instant::now();
        let page = read_archive(conn, &filter, after, 100, ArchiveFormat::Pgn).unwrap();
        reading += start.elapsed();
        if page.count() == 0 {
            break;
        }
        games += page.count();
        after = page.next.clone();
        let start = Instant::now();
        black_box(write_archive(page).unwrap());
        writing += start.elapsed();
    }
    assert_eq!(games, expected);
    let rate = |spent: Duration| games as f64 / spent.as_secs_f64();
    (rate(reading), rate(writing))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes = seeding::growing_sizes(&args, &[1_000, 10_000, 100_000]);
    let dir = std::env::temp_dir().join(format!("kingpost-archive-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = dir.join("archive.sqlite3").display().to_string();
    let pool = open_database(&url).unwrap();
    let mut conn = pool.get().unwrap();
    seeding::accounts(&mut conn);
    let samples = sample_games(500);
    println!("archive export (PGN, streamed) vs the raw database read of the same rows, SQLite");
    println!(
        "{:>8} {:>10} {:>11} {:>6} {:>9} {:>14} {:>14} {:>27}",
        "games",
        "export/s",
        "raw read/s",
        "ratio",
        "peak MiB",
        "its reading/s",
        "its writing/s",
        "CPU µs a game: server client raw"
    );
    let mut seeded = 0;
    for size in sizes {
        seed(&mut conn, seeded, size, &samples);
        seeded = size;
        let exported = export(&url, size);
        let (raw, raw_us) = raw_read(&mut conn, size);
        let (reading, writing) = halves(&mut conn, size);
        println!(
            "{size:>8} {:>10.0} {raw:>11.0} {:>6.2} {:>9.1} {reading:>14.0} {writing:>14.0} {:>21.0} {:>6.0} {raw_us:>4.0}",
            exported.rate,
            exported.rate / raw,
            exported.peak_mib,
            exported.server_us,
            exported.client_us,
        );
    }
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
}
