//! Archive export: the games per second of `GET /users/{name}/games.pgn` on
//! the real `kingpost serve` (release) and its peak memory, for archives of
//! 1,000, 10,000 and 100,000 games, beside the raw database read of the same
//! rows in the same run.
//!
//! `cargo bench -p kingpost-api --bench archive` (sizes may be given:
//! `-- 1000 5000`). Memory must stay flat as the archive grows: it is
//! streamed a page at a time.

mod common;

use std::{
    io::{BufRead, BufReader},
    time::Instant,
};

use common::Server;
use diesel::prelude::*;
use kingpost_api::{
    db::{DbConnection, schema::moves, write_transaction},
    models::{
        account::{self, Account},
        game::{self, GameRow, MoveRow},
    },
    server::open_database,
};
use kingpost_core::{Game, Position, Rules};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// A played game's moves: UCI, SAN, key.
type Moves = Vec<(String, String, i64)>;

fn sample_games(count: usize) -> Vec<(Moves, String)> {
    let mut rng = SmallRng::seed_from_u64(9);
    (0..count)
        .map(|_| {
            let mut game = Game::new(Position::new(Rules::Standard));
            let mut moves = Vec::new();
            for _ in 0..rng.random_range(40..120) {
                if game.outcome().is_some() {
                    break;
                }
                let pos = game.position().clone();
                let legal = pos.legal_moves();
                let m = legal[rng.random_range(0..legal.len())];
                let (uci, san) = (pos.uci(&m), pos.san_among(&m, &legal));
                game.play_unchecked(m);
                moves.push((uci, san, game.position().repetition_key() as i64));
            }
            (moves, game.position().fen())
        })
        .collect()
}

fn seed(conn: &mut DbConnection, from: usize, to: usize, samples: &[(Moves, String)]) {
    let initial = Position::new(Rules::Standard);
    for batch_start in (from..to).step_by(1000) {
        write_transaction(conn, |conn| {
            for i in batch_start..to.min(batch_start + 1000) {
                let (sample_moves, fen) = &samples[i % samples.len()];
                let id = format!("bench{i:08}");
                let at = 1_796_040_000_000 + i as i64 * 1000;
                game::insert(
                    conn,
                    &GameRow {
                        id: id.clone().into(),
                        rules: Rules::Standard.into(),
                        start_kind: kingpost_api::models::game::StartKind::Standard,
                        start_number: None,
                        initial_fen: initial.fen(),
                        initial_key: initial.repetition_key() as i64,
                        current_fen: fen.clone(),
                        ply: sample_moves.len() as i32,
                        status: kingpost_api::views::GameStatus::Finished,
                        result: Some(kingpost_api::views::GameResult::Draw),
                        termination: Some(kingpost_api::views::Termination::Agreement),
                        white_id: Some("alice".into()),
                        black_id: Some("bob".into()),
                        white_name: "alice".into(),
                        black_name: "bob".into(),
                        to_move_id: None,
                        days_per_move: 3,
                        deadline_at: None,
                        created_at: at,
                        updated_at: at,
                        imported_by: None,
                        import_key: None,
                        source_tags: None,
                        turn_started_at: at,
                        draw_offer_by: None,
                        warned_ply: None,
                        eco: None,
                        opening: None,
                        played_on: None,
                    },
                )?;
                let rows: Vec<MoveRow> = sample_moves
                    .iter()
                    .enumerate()
                    .map(|(ply, (uci, san, key))| MoveRow {
                        game_id: id.clone().into(),
                        ply: ply as i32 + 1,
                        uci: uci.clone(),
                        san: san.clone(),
                        position_key: *key,
                        played_at: Some(at),
                    })
                    .collect();
                game::insert_moves(conn, &rows)?;
            }
            Ok::<_, diesel::result::Error>(())
        })
        .expect("seeding");
    }
}

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
    for name in ["alice", "bob"] {
        account::insert(
            &mut conn,
            &Account {
                id: name.into(),
                username: name.into(),
                username_key: name.into(),
                password_hash: "-".into(),
                created_at: 0,
                vacation_balance: 0,
                vacation_next_grant_at: 0,
                vacation_since: None,
            },
        )
        .unwrap();
    }
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
