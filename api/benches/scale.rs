//! A large database against an empty one: what the service does with it
//! (in process, on the server's own connections), on SQLite and, when
//! `KINGPOST_TEST_DATABASE_URL` is set, on Postgres (in a schema of its
//! own, dropped after).
//!
//! `cargo bench -p kingpost-api --bench scale` (100,000 games; the size
//! and one database may be given: `-- 1000000 sqlite`). The archive is
//! seeded with direct inserts: games of 40 to 120 plies among a hundredth
//! as many accounts, a tenth of them under way (deadlines two to three days
//! off, beyond any warning) and ten past their deadline. Then:
//!
//! - a move: one move in each of 200 games under way, after one in each of
//!   2,000 others (unmeasured, as a running server's page cache is warm),
//!   against the same in a small database of 2,000 games seeded alike (p50
//!   and p99, ratio of medians), with the CPU time, read calls and disk
//!   reads a move costs the process doing the database's work (this one on
//!   SQLite, the connection's backend on Postgres: `/proc/<pid>/io`); on
//!   SQLite, again with a page cache of 256 MiB a connection
//!   (`--sqlite-cache-mib`);
//! - a page of an account's finished games and of its games under way
//!   (the game lists), and of its archive, for 200 accounts (the same
//!   figures; on SQLite with either page cache, each for its own
//!   accounts);
//! - one sweep (it ends the ten games past their deadline);
//! - the database's size per game.

mod common;

use std::time::Instant;

use common::{
    process::{self, cpu_time},
    seeding::{self, Sample, finished_game, sample_games},
};
use diesel::{
    ExpressionMethods, QueryDsl, QueryableByName, RunQueryDsl, SelectableHelper, sql_types::BigInt,
};
use kingpost_api::{
    db::{
        Backend, DbConnection, DbPool, PoolSettings, execute_natively, schema::games,
        write_transaction,
    },
    domain::game::{self, Play, Player, listing},
    models::{
        account::{self, Account},
        game::{ArchiveFilter, GameRow, Listing, archive_page},
        position_index::{self, PositionRow},
    },
    notify::Outbox,
    server::{open_database, open_database_with},
    views::GameStatus,
};
use kingpost_core::{Position, Rules};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// "Now" for the measurements: after every seeded game.
const NOW: i64 = 1_900_000_000_000;
const DAY: i64 = 86_400_000;
const SAMPLES: usize = 200;

fn account_name(n: usize) -> String {
    format!("p{n:07}")
}

/// The game `i` of an archive of `accounts` players: a tenth under way.
fn game_row(i: usize, accounts: usize, sample: &Sample, rng: &mut SmallRng) -> GameRow {
    let white_n = rng.random_range(0..accounts);
    let white = account_name(white_n);
    let black = account_name((white_n + rng.random_range(1..accounts)) % accounts);
    let at = NOW - 400 * DAY + i as i64 * 1000;
    let mut row = finished_game(&format!("g{i:09}"), at, &white, &black, sample);
    if i.is_multiple_of(10) {
        let to_move = if row.ply % 2 == 0 { white } else { black };
        let deadline = NOW + 2 * DAY + rng.random_range(0..DAY);
        row.status = GameStatus::Started;
        row.result = None;
        row.termination = None;
        row.to_move_id = Some(to_move.as_str().into());
        row.deadline_at = Some(deadline);
        // The turn began a move's three days before its deadline.
        row.turn_started_at = deadline - 3 * DAY;
    }
    row
}

fn insert_games(conn: &mut DbConnection, rows: &[GameRow]) -> diesel::QueryResult<()> {
    // Within SQLite's bound parameters per statement (43 columns a row).
    for chunk in rows.chunks(500) {
        let insert = diesel::insert_into(games::table).values(chunk);
        execute_natively(conn, insert)?;
    }
    Ok(())
}

/// The position index (keyed by a hash: each of sixty million inserts
/// would land on a page of its own) is built at the seeding's end from the
/// positions staged meanwhile, sorted, as a bulk import builds it; on
/// SQLite with a large page cache meanwhile. The other indexes grow as the
/// server grows them.
fn before_seeding(conn: &mut DbConnection) {
    if let DbConnection::Sqlite(sqlite) = conn {
        diesel::sql_query("PRAGMA cache_size = -262144")
            .execute(sqlite)
            .unwrap();
    }
}

/// Indexes the positions staged by the seeding, and gives the connection
/// back its default page cache for the measurements.
fn after_seeding(conn: &mut DbConnection) {
    let started = Instant::now();
    kingpost_api::domain::pgn::index_staged(conn).unwrap();
    eprintln!(
        "  position index built in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if let DbConnection::Sqlite(sqlite) = conn {
        diesel::sql_query("PRAGMA cache_size = -2000")
            .execute(sqlite)
            .unwrap();
    }
}

/// Seeds `games` games among `games / 100` accounts, a thousand games a
/// transaction, with progress on stderr.
fn seed(conn: &mut DbConnection, games: usize, samples: &[Sample]) {
    before_seeding(conn);
    let accounts = (games / 100).max(10);
    for n in 0..accounts {
        let name = account_name(n);
        account::insert(
            conn,
            &Account {
                id: name.as_str().into(),
                username: name.clone(),
                username_key: name,
                password_hash: "-".into(),
                created_at: 0,
                vacation_balance: 0,
                vacation_next_grant_at: NOW + 30 * DAY,
                vacation_since: None,
                last_active_at: None,
                deleted_at: None,
                bot: false,
                online_until: None,
            },
        )
        .unwrap();
    }
    let mut rng = SmallRng::seed_from_u64(5);
    let started = Instant::now();
    for from in (0..games).step_by(1000) {
        let rows: Vec<GameRow> = (from..games.min(from + 1000))
            .map(|i| game_row(i, accounts, &samples[i % samples.len()], &mut rng))
            .collect();
        let positions: Vec<PositionRow> = rows
            .iter()
            .enumerate()
            .flat_map(|(k, row)| seeding::index_rows(row, &samples[(from + k) % samples.len()]))
            .collect();
        write_transaction(conn, |conn| {
            insert_games(conn, &rows)?;
            position_index::stage(conn, &positions)
        })
        .unwrap();
        if (from + 1000).is_multiple_of(100_000) {
            eprintln!(
                "  {} games seeded ({:.0} s)",
                from + 1000,
                started.elapsed().as_secs_f64()
            );
        }
    }
    // Ten games past their deadline, for the sweep to end.
    diesel::update(games::table)
        .filter(games::id.eq_any((0..10).map(|k| format!("g{:09}", k * 10))))
        .set(games::deadline_at.eq(NOW - DAY))
        .execute(conn)
        .unwrap();
    after_seeding(conn);
}

fn percentiles(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// Games under way, and for each the move its side to move plays.
fn playable(conn: &mut DbConnection, count: usize) -> Vec<(GameRow, String)> {
    let rows: Vec<GameRow> = games::table
        .filter(games::status.eq(GameStatus::Started))
        .filter(games::deadline_at.gt(NOW))
        .order(games::id)
        .limit(2 * count as i64)
        .select(GameRow::as_select())
        .load(conn)
        .unwrap();
    // The sample lines that end in mate or a draw leave nothing to play.
    rows.into_iter()
        .filter_map(|row| {
            let pos = Position::from_fen(Rules::Standard, &row.current_fen).unwrap();
            let m = *pos
                .legal_moves()
                .first()
                .filter(|_| pos.outcome().is_none())?;
            let uci = pos.uci(&m);
            Some((row, uci))
        })
        .take(count)
        .collect()
}

/// The process doing a connection's database work: this one on SQLite,
/// which runs in process, and the connection's backend on Postgres (on
/// this machine, so its `/proc` can be read).
fn database_process(conn: &mut DbConnection) -> String {
    #[derive(QueryableByName)]
    struct Pid {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }
    match conn {
        DbConnection::Sqlite(_) => "self".to_owned(),
        DbConnection::Postgresql(pg) => diesel::sql_query("SELECT pg_backend_pid() AS pid")
            .get_result::<Pid>(pg)
            .unwrap()
            .pid
            .to_string(),
    }
}

/// A process's CPU time, its read system calls, and the bytes they
/// fetched from the disk rather than the kernel's cache (`/proc/<pid>/io`):
/// where the database's pages come from when its own cache lacks them.
#[derive(Clone, Copy, Debug, Default)]
struct Work {
    cpu: std::time::Duration,
    reads: u64,
    disk_bytes: u64,
}

fn work(pid: &str) -> Work {
    Work {
        cpu: cpu_time(pid),
        reads: process::field(pid, "io", "syscr:"),
        disk_bytes: process::field(pid, "io", "read_bytes:"),
    }
}

/// What a request cost, per request: p50 and p99 in ms; the CPU time (µs),
/// read calls and KiB from the disk of the process doing the database's
/// work (on SQLite, this one: the service's own work too).
struct Figures {
    p50: f64,
    p99: f64,
    cpu_us: f64,
    reads: f64,
    disk_kib: f64,
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{:>7.2} / {:>7.2}   {:>5.0} µs CPU, {:>5.1} reads, {:>5.1} KiB from disk",
            self.p50, self.p99, self.cpu_us, self.reads, self.disk_kib
        )
    }
}

/// `run` on each input, timed, with the work of process `pid` (see
/// [`database_process`]).
fn measured<T>(pid: &str, inputs: &[T], mut run: impl FnMut(&T)) -> Figures {
    let before = work(pid);
    let (p50, p99) = percentiles(
        inputs
            .iter()
            .map(|input| {
                let start = Instant::now();
                run(input);
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    );
    let after = work(pid);
    let each = |n: f64| n / inputs.len().max(1) as f64;
    Figures {
        p50,
        p99,
        cpu_us: each((after.cpu - before.cpu).as_secs_f64() * 1e6),
        reads: each((after.reads - before.reads) as f64),
        disk_kib: each((after.disk_bytes - before.disk_bytes) as f64) / 1024.0,
    }
}

/// One move in each game.
fn moves(conn: &mut DbConnection, games: &[(GameRow, String)]) -> Figures {
    let pid = database_process(conn);
    measured(&pid, games, |(row, uci)| {
        let mover = row.to_move_id.clone().unwrap();
        let play = Play {
            text: uci.clone(),
            ply: row.ply,
            offer_draw: false,
            message: None,
        };
        // Its last activity unknown, as no token was read: noted as before.
        let player = Player {
            id: &mover,
            last_active_at: None,
        };
        game::play_move(conn, &mut Outbox::default(), NOW, &row.id, player, &play).unwrap();
    })
}

/// A page of each player's finished games, of their games under way, and
/// of their archive.
fn pages(conn: &mut DbConnection, players: &[String]) -> [Figures; 3] {
    let pid = database_process(conn);
    let mut list = |which| {
        measured(&pid, players, |me| {
            listing::list(
                conn,
                &me.as_str().into(),
                which,
                None,
                listing::DEFAULT_PAGE,
            )
            .unwrap();
        })
    };
    let (finished, ongoing) = (list(Listing::Finished), list(Listing::Ongoing));
    let archive = measured(&pid, players, |me| {
        let filter = ArchiveFilter {
            account_id: me.as_str().into(),
            rules: None,
            since: None,
            until: None,
            finished_only: true,
        };
        archive_page(conn, &filter, None, 100).unwrap();
    });
    [finished, ongoing, archive]
}

/// Moves played before the measured ones, unmeasured, so that the page
/// cache holds what a running server's would (at least the B-trees'
/// inner pages).
const WARMING: usize = 2000;

/// One move in each game: the last [`SAMPLES`] (or half of the games, if
/// fewer) measured by [`moves`], the ones before them warming the cache.
fn warm_moves(conn: &mut DbConnection, games: &[(GameRow, String)]) -> Figures {
    let (warm, measured) = games.split_at(games.len() - SAMPLES.min(games.len() / 2));
    moves(conn, warm);
    moves(conn, measured)
}

#[derive(QueryableByName)]
struct Size {
    #[diesel(sql_type = BigInt)]
    bytes: i64,
}

/// The database's size in bytes: its tables and indexes.
fn size(conn: &mut DbConnection, sqlite_file: Option<&str>) -> i64 {
    match (conn, sqlite_file) {
        (DbConnection::Sqlite(sqlite), Some(file)) => {
            diesel::sql_query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(sqlite)
                .unwrap();
            std::fs::metadata(file).unwrap().len() as i64
        }
        (DbConnection::Postgresql(pg), _) => {
            diesel::sql_query(
                "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::BIGINT AS bytes \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = current_schema() AND c.relkind = 'r'",
            )
            .get_result::<Size>(pg)
            .unwrap()
            .bytes
        }
        _ => 0,
    }
}

/// SQLite's page cache a connection in the second measure of a move and
/// of the pages (`--sqlite-cache-mib`), against its 2 MiB default.
const CACHED_MIB: u32 = 256;

/// Seeds `pool` with `games` games and measures it, beside `empty`, a
/// database of 2,000 games seeded alike; on SQLite (`file`) again through
/// `cached`, the same file with a page cache of [`CACHED_MIB`].
fn measure(
    name: &str,
    pool: &DbPool,
    empty: &DbPool,
    cached: Option<&DbPool>,
    games: usize,
    file: Option<&str>,
) {
    let samples = sample_games(500);
    let mut conn = pool.get().unwrap();
    let started = Instant::now();
    seed(&mut conn, games, &samples);
    eprintln!(
        "{name}: {games} games seeded in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    if matches!(**conn, DbConnection::Postgresql(_)) {
        diesel::sql_query("ANALYZE").execute(&mut **conn).unwrap();
    }
    let bytes = size(&mut conn, file);

    let mut small = empty.get().unwrap();
    seed(&mut small, SAMPLES * 10, &samples);
    let in_small = playable(&mut small, SAMPLES);
    let in_small = moves(&mut small, &in_small);
    // Half of the games under way for each page cache.
    let under_way = playable(&mut conn, 2 * (WARMING + SAMPLES));
    let (for_default, for_cached) = under_way.split_at(under_way.len() / 2);
    let in_large = warm_moves(&mut conn, for_default);
    let in_cached = cached.map(|pool| warm_moves(&mut pool.get().unwrap(), for_cached));

    // Other players for the second page cache, so that neither set reads
    // pages the other has just brought into the kernel's cache.
    let accounts = (games / 100).max(10);
    let mut rng = SmallRng::seed_from_u64(17);
    let players: Vec<String> = (0..2 * SAMPLES)
        .map(|_| account_name(rng.random_range(0..accounts)))
        .collect();
    let (players, other_players) = players.split_at(SAMPLES);
    let pages_default = pages(&mut conn, players);
    let pages_cached = cached.map(|pool| pages(&mut pool.get().unwrap(), other_players));
    let start = Instant::now();
    let ended = game::sweep(&mut conn, &mut Outbox::default(), NOW).unwrap();
    let sweep = start.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(ended, 10, "the sweep ends the games past their deadline");

    println!(
        "{name}, {games} games (p50 / p99 ms; the cost to the process doing the database's work)"
    );
    println!(
        "  a move                    {in_large}   ratio {:.2}",
        in_large.p50 / in_small.p50
    );
    println!("  a move, small database    {in_small}");
    let labels = [
        "finished games, a page",
        "games under way, a page",
        "archive, a page",
    ];
    for (label, figures) in labels.iter().zip(&pages_default) {
        println!("  {label:<25} {figures}");
    }
    if let (Some(in_cached), Some(pages_cached)) = (in_cached, pages_cached) {
        println!("  with {CACHED_MIB} MiB of page cache a connection, other games and players:");
        println!(
            "  a move                    {in_cached}   ratio {:.2}",
            in_cached.p50 / in_small.p50
        );
        for (label, figures) in labels.iter().zip(&pages_cached) {
            println!("  {label:<25} {figures}");
        }
    }
    println!("  one sweep (ends 10)       {sweep:>7.2}");
    println!(
        "  size: {:.0} MiB, {:.0} bytes a game",
        bytes as f64 / 1048576.0,
        bytes as f64 / games as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games = args
        .iter()
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000usize);
    let only = |name: &str| common::wants_database(&args, name);
    if only("sqlite") {
        let dir = std::env::temp_dir().join(format!("kingpost-scale-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("large.sqlite3").display().to_string();
        let empty = dir.join("empty.sqlite3").display().to_string();
        let pool = open_database(&file).unwrap();
        let cached = open_database_with(
            &file,
            PoolSettings {
                sqlite_cache_mib: Some(CACHED_MIB),
                ..PoolSettings::for_backend(Backend::Sqlite)
            },
        )
        .unwrap();
        measure(
            "SQLite",
            &pool,
            &open_database(&empty).unwrap(),
            Some(&cached),
            games,
            Some(&file),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    if let Some(base) = std::env::var("KINGPOST_TEST_DATABASE_URL")
        .ok()
        .filter(|_| only("postgres"))
    {
        let admin = open_database(&base).unwrap();
        let schema = |name: &str| format!("bench_scale_{name}_{}", std::process::id());
        let separator = if base.contains('?') { '&' } else { '?' };
        let mut pools = Vec::new();
        for name in ["large", "empty"] {
            diesel::sql_query(format!("CREATE SCHEMA {}", schema(name)))
                .execute(&mut **admin.get().unwrap())
                .unwrap();
            let url = format!("{base}{separator}options=-csearch_path%3D{}", schema(name));
            pools.push(open_database(&url).unwrap());
        }
        measure("Postgres", &pools[0], &pools[1], None, games, None);
        drop(pools);
        for name in ["large", "empty"] {
            diesel::sql_query(format!("DROP SCHEMA {} CASCADE", schema(name)))
                .execute(&mut **admin.get().unwrap())
                .unwrap();
        }
    }
}
