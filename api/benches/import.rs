//! PGN imports into SQLite, against reading the same file without storing.
//!
//! `cargo bench -p kingpost-api --bench import` (a PGN file may be given,
//! `-- games.pgn`, or the number of random games of both runs, `-- 300`;
//! without, 10,000 random standard games are written):
//!
//! - `kingpost pgn import` (release) into a fresh database, in games per
//!   second, beside `kingpost pgn check` on the same file in the same run:
//!   what storing adds to reading and replaying;
//! - `POST /imports` of the largest request (10,000 games within 8 MiB) to
//!   the real server: games per second and what the import adds to the
//!   server's resident memory (its peak, VmHWM, after the import against
//!   its resident memory before).

mod common;

use std::{
    io::Write,
    process::{Command, Output},
    time::Instant,
};

use common::{Server, process::status_mib, seeding::pgn_sample};
use kingpost_core::pgn::GameTexts;
use serde_json::{Value, json};

const BODY_LIMIT: usize = 8 * 1024 * 1024;

fn kingpost(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_kingpost"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kingpost {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Games per second of `kingpost pgn check` and `kingpost pgn import` on
/// `path`, and the import's summary line.
fn cli(path: &str, games: usize, dir: &std::path::Path) -> (f64, f64, String) {
    let start = Instant::now();
    kingpost(&["pgn", "check", path]);
    let check = games as f64 / start.elapsed().as_secs_f64();

    let url = dir.join("cli.sqlite3");
    let url = url.to_str().unwrap();
    kingpost(&["migrate", "--database-url", url]);
    let mut conn = kingpost_api::server::open_database(url)
        .unwrap()
        .get()
        .unwrap();
    common::seeding::accounts(&mut conn);
    drop(conn);
    let start = Instant::now();
    let output = kingpost(&[
        "pgn",
        "import",
        path,
        "--owner",
        "alice",
        "--database-url",
        url,
    ]);
    let import = games as f64 / start.elapsed().as_secs_f64();
    let summary = String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    (check, import, summary)
}

/// Imports `body` over HTTP into a fresh server: games per second, its
/// resident memory before, and its peak after.
fn http(body: String, games: usize, dir: &std::path::Path) -> (f64, f64, f64) {
    let url = dir.join("http.sqlite3");
    let server = Server::start(url.to_str().unwrap(), &[]);
    let base = &server.base;
    let client = reqwest::blocking::Client::builder()
        .timeout(None)
        .build()
        .unwrap();
    let credentials = json!({"username": "alice", "password": "correct horse battery"});
    client
        .post(format!("{base}/accounts"))
        .json(&credentials)
        .send()
        .unwrap();
    let token: Value = client
        .post(format!("{base}/auth/token"))
        .json(&json!({"grant_type": "password", "username": "alice", "password": "correct horse battery"}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let token = token["access_token"].as_str().unwrap().to_owned();
    let import = |body: String| {
        client
            .post(format!("{base}/imports"))
            .bearer_auth(&token)
            .header("Content-Type", "application/octet-stream")
            .body(body)
            .send()
            .unwrap()
    };
    // A small import first, so that what is made once (the pools, the
    // opening tables) is not counted as the large one's.
    let warm_up = import(pgn_sample(20, BODY_LIMIT, false));
    assert!(warm_up.status().is_success(), "{}", warm_up.status());
    let before = status_mib(server.pid(), "VmRSS:");
    let start = Instant::now();
    let answer = import(body);
    let status = answer.status();
    let report: Value = answer.json().unwrap();
    let rate = games as f64 / start.elapsed().as_secs_f64();
    assert!(status.is_success(), "{status}: {report}");
    assert_eq!(report["read"].as_u64(), Some(games as u64), "{report}");
    (rate, before, status_mib(server.pid(), "VmHWM:"))
}

fn main() {
    let dir = std::env::temp_dir().join(format!("kingpost-import-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let given = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let count = given
        .as_deref()
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let path = match given.filter(|a| a.parse::<usize>().is_err()) {
        Some(path) => path,
        None => {
            let path = dir.join("sample.pgn");
            std::fs::File::create(&path)
                .unwrap()
                .write_all(pgn_sample(count, usize::MAX, true).as_bytes())
                .unwrap();
            path.to_str().unwrap().to_owned()
        }
    };
    let games =
        GameTexts::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap())).count();

    let (check, import, summary) = cli(&path, games, &dir);
    println!("CLI, {games} games of {path}");
    println!("  kingpost pgn check (read, replay):        {check:>8.0} games/s");
    println!("  kingpost pgn import (into SQLite):        {import:>8.0} games/s");
    println!("  ratio: {:.2}   ({summary})", import / check);

    // As many games as a request may hold, within its size: the most
    // games made ready per byte of body.
    let body = pgn_sample(count.min(10_000), BODY_LIMIT, false);
    let body_mib = body.len() as f64 / (1024.0 * 1024.0);
    let body_games = GameTexts::new(body.as_bytes()).count();
    let (rate, before, peak) = http(body, body_games, &dir);
    println!("HTTP, one import of {body_games} games ({body_mib:.1} MiB)");
    println!("  POST /imports:                            {rate:>8.0} games/s");
    println!(
        "  server memory: {before:.1} MiB before, peak {peak:.1} MiB: the import adds {:.1} MiB ({:.1} times the body)",
        peak - before,
        (peak - before) / body_mib
    );
    std::fs::remove_dir_all(&dir).ok();
}
