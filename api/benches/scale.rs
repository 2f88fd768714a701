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
//!   200 others (unmeasured, as a running server's page cache is warm),
//!   against the same in a small database of 2,000 games seeded alike (p50
//!   and p99, ratio of medians), with the read calls a move makes and what
//!   they fetch from the disk (`/proc/self/io`); on SQLite, again with a
//!   page cache of 256 MiB a connection (`--sqlite-cache-mib`);
//! - a page of an account's finished games and of its games under way
//!   (the game lists), and of its archive (p50 and p99; the archive on
//!   SQLite with either page cache);
//! - one sweep (it ends the ten games past their deadline);
//! - the database's size per game.

mod common;

use std::time::Instant;

use common::seeding::{self, Moves, finished_game, sample_games};
use diesel::{
    ExpressionMethods, QueryDsl, QueryableByName, RunQueryDsl, SelectableHelper, sql_types::BigInt,
};
use kingpost_api::{
    db::{
        Backend, DbConnection, DbPool, PoolSettings, execute_natively, schema::games,
        write_transaction,
    },
    domain::game::{self, Play, listing},
    models::{
        account::{self, Account},
        game::{ArchiveFilter, GameRow, Listing, MoveRow, archive_page, insert_moves},
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
fn game_row(i: usize, accounts: usize, sample: &(Moves, String), rng: &mut SmallRng) -> GameRow {
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
    // Within SQLite's bound parameters per statement (32 columns a row).
    for chunk in rows.chunks(500) {
        let insert = diesel::insert_into(games::table).values(chunk);
        execute_natively(conn, insert)?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Sql {
    #[diesel(sql_type = diesel::sql_types::Text)]
    sql: String,
}

/// On SQLite, the position index (keyed by a hash: each of sixty million
/// inserts lands on a page of its own, and seeding a million games took an
/// hour and a half) is dropped for the seeding and built again at its end,
/// sorted, as a bulk load builds it; with a large page cache meanwhile.
/// The other indexes grow as the server grows them. Its statement to build
/// it again, or `None` on Postgres.
fn before_seeding(conn: &mut DbConnection) -> Option<String> {
    let DbConnection::Sqlite(sqlite) = conn else {
        return None;
    };
    let index = diesel::sql_query("SELECT sql FROM sqlite_master WHERE name = 'moves_by_position'")
        .get_result::<Sql>(sqlite)
        .unwrap()
        .sql;
    diesel::sql_query("DROP INDEX moves_by_position")
        .execute(sqlite)
        .unwrap();
    diesel::sql_query("PRAGMA cache_size = -262144")
        .execute(sqlite)
        .unwrap();
    Some(index)
}

/// Builds the index [`before_seeding`] dropped, and gives the connection
/// back its default page cache for the measurements.
fn after_seeding(conn: &mut DbConnection, index: Option<String>) {
    let (DbConnection::Sqlite(sqlite), Some(index)) = (conn, index) else {
        return;
    };
    let started = Instant::now();
    diesel::sql_query(index).execute(sqlite).unwrap();
    diesel::sql_query("PRAGMA cache_size = -2000")
        .execute(sqlite)
        .unwrap();
    eprintln!(
        "  position index built in {:.0} s",
        started.elapsed().as_secs_f64()
    );
}

/// Seeds `games` games among `games / 100` accounts, a thousand games a
/// transaction, with progress on stderr.
fn seed(conn: &mut DbConnection, games: usize, samples: &[(Moves, String)]) {
    let index = before_seeding(conn);
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
        let moves: Vec<MoveRow> = rows
            .iter()
            .enumerate()
            .flat_map(|(k, row)| seeding::move_rows(row, &samples[(from + k) % samples.len()].0))
            .collect();
        write_transaction(conn, |conn| {
            insert_games(conn, &rows)?;
            insert_moves(conn, &moves)
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
    after_seeding(conn, index);
}

fn percentiles(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// `run` on each input, timed: p50 and p99 in ms.
fn timed<T>(inputs: &[T], mut run: impl FnMut(&T)) -> (f64, f64) {
    percentiles(
        inputs
            .iter()
            .map(|input| {
                let start = Instant::now();
                run(input);
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    )
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

/// This process's read system calls and the bytes they fetched from the
/// disk rather than the kernel's cache (`/proc/self/io`): where SQLite's
/// pages come from when its own cache lacks them.
#[derive(Clone, Copy, Debug, Default)]
struct Reads {
    calls: u64,
    disk_bytes: u64,
}

fn reads() -> Reads {
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let field = |name: &str| {
        io.lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    Reads {
        calls: field("syscr:"),
        disk_bytes: field("read_bytes:"),
    }
}

/// A move's figures: p50 and p99 in ms, read calls and KiB from the disk
/// a move.
struct MoveFigures {
    p50: f64,
    p99: f64,
    reads: f64,
    disk_kib: f64,
}

impl std::fmt::Display for MoveFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{:>7.2} / {:>7.2}   reads a move {:>5.1} ({:.1} KiB from disk)",
            self.p50, self.p99, self.reads, self.disk_kib
        )
    }
}

/// One move in each game.
fn moves(conn: &mut DbConnection, games: &[(GameRow, String)]) -> MoveFigures {
    let before = reads();
    let (p50, p99) = timed(games, |(row, uci)| {
        let mover = row.to_move_id.clone().unwrap();
        let play = Play {
            text: uci.clone(),
            ply: row.ply,
            offer_draw: false,
        };
        game::play_move(conn, &mut Outbox::default(), NOW, &row.id, &mover, &play).unwrap();
    });
    let after = reads();
    let per_move = |n: u64| n as f64 / games.len().max(1) as f64;
    MoveFigures {
        p50,
        p99,
        reads: per_move(after.calls - before.calls),
        disk_kib: per_move(after.disk_bytes - before.disk_bytes) / 1024.0,
    }
}

/// One move in each of `warm` (unmeasured: the page cache fills as a
/// running server's has), then [`moves`] in `measured`.
fn warm_moves(
    conn: &mut DbConnection,
    warm: &[(GameRow, String)],
    measured: &[(GameRow, String)],
) -> MoveFigures {
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
/// of the archive (`--sqlite-cache-mib`), against its 2 MiB default.
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
    // Four sets of games: warming and measured, for each page cache.
    let in_large = playable(&mut conn, 4 * SAMPLES);
    let sets: Vec<&[(GameRow, String)]> = in_large.chunks(in_large.len().div_ceil(4)).collect();
    let [warm, measured, warm_cached, measured_cached] = sets[..] else {
        panic!("too few games under way to measure moves");
    };
    let in_large = warm_moves(&mut conn, warm, measured);
    let in_cached = cached.map(|pool| {
        let mut conn = pool.get().unwrap();
        warm_moves(&mut conn, warm_cached, measured_cached)
    });

    let accounts = (games / 100).max(10);
    let mut rng = SmallRng::seed_from_u64(17);
    let players: Vec<String> = (0..SAMPLES)
        .map(|_| account_name(rng.random_range(0..accounts)))
        .collect();
    let list = |conn: &mut DbConnection, which| {
        timed(&players, |me| {
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
    let (finished_50, finished_99) = list(&mut conn, Listing::Finished);
    let (ongoing_50, ongoing_99) = list(&mut conn, Listing::Ongoing);
    let archive = |conn: &mut DbConnection| {
        timed(&players, |me| {
            let filter = ArchiveFilter {
                account_id: me.as_str().into(),
                rules: None,
                since: None,
                until: None,
                finished_only: true,
            };
            archive_page(conn, &filter, None, 100).unwrap();
        })
    };
    let (archive_50, archive_99) = archive(&mut conn);
    let archive_cached = cached.map(|pool| archive(&mut pool.get().unwrap()));
    let start = Instant::now();
    let ended = game::sweep(&mut conn, &mut Outbox::default(), NOW).unwrap();
    let sweep = start.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(ended, 10, "the sweep ends the games past their deadline");

    println!("{name}, {games} games (p50 / p99 ms)");
    println!(
        "  a move:                {in_large}   ratio {:.2}",
        in_large.p50 / in_small.p50
    );
    println!("  a move, small database {in_small}");
    if let Some(in_cached) = in_cached {
        println!(
            "  a move, {CACHED_MIB} MiB cache  {in_cached}   ratio {:.2}",
            in_cached.p50 / in_small.p50
        );
    }
    println!("  finished games, a page {finished_50:>7.2} / {finished_99:>7.2}");
    println!("  games under way, a page{ongoing_50:>7.2} / {ongoing_99:>7.2}");
    println!("  archive, a page        {archive_50:>7.2} / {archive_99:>7.2}");
    if let Some((p50, p99)) = archive_cached {
        println!("  archive, {CACHED_MIB} MiB cache {p50:>7.2} / {p99:>7.2}");
    }
    println!("  one sweep (ends 10)    {sweep:>7.2}");
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
