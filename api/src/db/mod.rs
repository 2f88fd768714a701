//! The database: SQLite (the embedded default) or Postgres, behind one
//! connection type, one schema and one set of queries.

mod kept;
pub mod replicas;
pub mod schema;
pub mod timing;

pub use kept::{KeptUpdate, kept_update};

use std::{
    ops::{Deref, DerefMut},
    sync::{Arc, OnceLock},
    time::{Duration, Instant},
};

use anyhow::Context;
use diesel::{
    Connection, ExpressionMethods, IntoSql, PgConnection, RunQueryDsl, SqliteConnection,
    query_dsl::methods::ExecuteDsl,
    r2d2::{self, ManageConnection, Pool, R2D2Connection},
};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use replicas::Replicas;

use crate::workers::Workers;

/// A connection to either database; queries are written once against it.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    Postgresql(PgConnection),
    Sqlite(SqliteConnection),
}

impl std::fmt::Debug for DbConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DbConnection::Postgresql(_) => "DbConnection::Postgresql",
            DbConnection::Sqlite(_) => "DbConnection::Sqlite",
        })
    }
}

pub type DbPool = Pool<Manager>;

/// A connection of the pool, and when it was last given back to it whole.
#[derive(Debug)]
pub struct Pooled {
    conn: DbConnection,
    returned_at: Instant,
}

/// How long a connection given back whole is trusted to be alive without
/// the `SELECT 1` a checkout otherwise sends (a round trip each: two of a
/// move's sixteen on Postgres). Under load every checkout falls within it;
/// an idle connection is tested as before. HikariCP's rule and window.
const RETURNED_RECENTLY: Duration = Duration::from_millis(500);

impl Deref for Pooled {
    type Target = DbConnection;

    fn deref(&self) -> &DbConnection {
        &self.conn
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut DbConnection {
        &mut self.conn
    }
}

/// Runs a read that must see the caller's own latest writes (a game about
/// to be moved in, a lobby, whatever follows a change) on a connection of
/// the primary, on a blocking thread. Such reads never go to a replica:
/// instances are stateless behind a load balancer, so the caller's last
/// write may have gone through another one, and no instance could tell how
/// far a replica must have come for them; these reads are the cheap ones.
pub async fn read_own<T, F>(primary: &DbPool, f: F) -> Result<T, crate::error::ApiError>
where
    T: Send + 'static,
    F: FnOnce(&mut DbConnection) -> Result<T, crate::error::ApiError> + Send + 'static,
{
    let pool = primary.clone();
    actix_web::web::block(timing::in_callers_span(move || {
        let asked = Instant::now();
        let mut conn = pool.get()?;
        let waited_us = timing::micros_since(asked);
        tracing::debug!(target: timing::TARGET, waited_us, "connection taken");
        f(&mut conn)
    }))
    .await?
}

/// Runs a read that may lag behind the latest writes by the replicas'
/// bound (an export, a search, a profile) on a replica that keeps up, in
/// turn, or on the primary when none does. A read that fails as a replica
/// that went away does is set aside and run again on the primary: `f` may
/// run twice, and reads only.
///
/// These reads run on threads of their own at a lower CPU priority
/// ([`LAGGING_NICENESS`]): on a busy machine the moves and other changes
/// come first, and the reads that may lag wait for the cores.
pub async fn read_lagging<T, F>(
    primary: &DbPool,
    replicas: &Arc<Replicas>,
    f: F,
) -> Result<T, crate::error::ApiError>
where
    T: Send + 'static,
    F: Fn(&mut DbConnection) -> Result<T, crate::error::ApiError> + Send + 'static,
{
    static THREADS: OnceLock<Workers> = OnceLock::new();
    let threads = THREADS
        .get_or_init(|| Workers::start("kingpost-lagging", LAGGING_THREADS, LAGGING_NICENESS));
    let pool = primary.clone();
    let replicas = replicas.clone();
    let read = timing::in_callers_span(move || {
        for replica in replicas.usable() {
            let result = replica.pool.get().map_err(crate::error::ApiError::from);
            match result.and_then(|mut conn| f(&mut conn)) {
                Err(
                    error @ (crate::error::ApiError::Unavailable { .. }
                    | crate::error::ApiError::ConnectionLost(_)),
                ) => {
                    tracing::warn!(replica = %replica.shown, %error, "a read failed on a replica; trying elsewhere");
                    replica.set_aside();
                }
                done => return done,
            }
        }
        let mut conn = pool.get()?;
        f(&mut conn)
    });
    threads.run(read).await.map_err(|_| {
        crate::error::ApiError::Internal("a read failed: its thread panicked".to_owned())
    })?
}

/// Threads for the reads that may lag: as many as a pool's connections,
/// since they mostly wait for the database.
const LAGGING_THREADS: usize = 16;

/// How much less CPU the reads that may lag ask for than the requests'
/// changes (a nice value, as the delivery loops').
const LAGGING_NICENESS: i32 = 10;

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/postgres");

/// Which database a URL names: `postgres://` or `postgresql://` is
/// Postgres, anything else a SQLite file (or `:memory:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

impl Backend {
    pub fn of_url(url: &str) -> Backend {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            Backend::Sqlite
        }
    }
}

/// How long a SQLite connection waits for another's lock before it fails
/// with "database is locked".
const BUSY_TIMEOUT: &str = "PRAGMA busy_timeout = 10000";

/// An r2d2 manager that picks the backend by the URL's scheme, never by
/// trying one after the other (a Postgres URL must never become a file).
#[derive(Debug)]
pub struct Manager {
    url: String,
    backend: Backend,
    /// SQLite's page cache a connection, in MiB; `None` keeps its default.
    sqlite_cache_mib: Option<u32>,
    /// Whether a thread of its own checkpoints ([`checkpoint_apart`]).
    sqlite_checkpoints_apart: bool,
}

impl ManageConnection for Manager {
    type Connection = Pooled;
    type Error = r2d2::Error;

    fn connect(&self) -> Result<Pooled, r2d2::Error> {
        Ok(Pooled {
            conn: self.establish()?,
            returned_at: Instant::now(),
        })
    }

    fn is_valid(&self, pooled: &mut Pooled) -> Result<(), r2d2::Error> {
        if pooled.returned_at.elapsed() < RETURNED_RECENTLY {
            return Ok(());
        }
        // Kept prepared, where raw SQL would be prepared on each check.
        diesel::select(1.into_sql::<diesel::sql_types::Integer>())
            .execute(&mut pooled.conn)
            .map(|_| ())
            .map_err(r2d2::Error::QueryError)
    }

    /// Called as a connection is given back. One left in a failed or open
    /// transaction is dropped, as is one whose server went away (Diesel
    /// marks it so when a statement finds the connection lost), so that it
    /// is not handed out again untested.
    fn has_broken(&self, pooled: &mut Pooled) -> bool {
        if std::thread::panicking() || pooled.conn.is_broken() {
            return true;
        }
        pooled.returned_at = Instant::now();
        false
    }
}

impl Manager {
    fn establish(&self) -> Result<DbConnection, r2d2::Error> {
        match self.backend {
            Backend::Postgres => {
                let mut conn =
                    PgConnection::establish(&self.url).map_err(r2d2::Error::ConnectionError)?;
                conn.set_instrumentation(timing::StatementTimer::default());
                Ok(DbConnection::Postgresql(conn))
            }
            Backend::Sqlite => {
                let mut conn =
                    SqliteConnection::establish(&self.url).map_err(r2d2::Error::ConnectionError)?;
                // Writers wait for each other rather than fail; FULL syncs
                // every commit (in WAL mode, set once in `connect`), so an
                // acknowledged move survives a power cut. A statement's
                // journal (an insert of many rows has one) and a sort's
                // temporary tables are kept in memory, not written to
                // temporary files.
                for pragma in [
                    BUSY_TIMEOUT,
                    "PRAGMA synchronous = FULL",
                    "PRAGMA foreign_keys = ON",
                    "PRAGMA temp_store = MEMORY",
                ] {
                    diesel::sql_query(pragma)
                        .execute(&mut conn)
                        .map_err(r2d2::Error::QueryError)?;
                }
                if self.sqlite_checkpoints_apart {
                    // Commits checkpoint only if the thread falls this far
                    // behind (64 MiB of log).
                    diesel::sql_query("PRAGMA wal_autocheckpoint = 16384")
                        .execute(&mut conn)
                        .map_err(r2d2::Error::QueryError)?;
                }
                if let Some(mib) = self.sqlite_cache_mib {
                    // A negative size is in KiB rather than pages.
                    diesel::sql_query(format!("PRAGMA cache_size = -{}", u64::from(mib) * 1024))
                        .execute(&mut conn)
                        .map_err(r2d2::Error::QueryError)?;
                }
                conn.set_instrumentation(timing::StatementTimer::default());
                Ok(DbConnection::Sqlite(conn))
            }
        }
    }
}

/// How many connections a pool holds, how long a request waits for one
/// before it is answered `503` (every connection busy), and on SQLite the
/// page cache of each.
#[derive(Debug, Clone, Copy)]
pub struct PoolSettings {
    pub max_size: u32,
    pub connection_timeout: Duration,
    /// SQLite's page cache a connection, in MiB (`None`: SQLite's default,
    /// 2 MiB): pages found there are not read from the file again, until
    /// another connection writes (WAL mode then empties it). Each of the
    /// pool's connections has its own, so the pool may hold `max_size`
    /// times this much. Postgres sizes its shared buffers itself.
    pub sqlite_cache_mib: Option<u32>,
    /// Whether SQLite's log is copied into the database by a thread of its
    /// own ([`checkpoint_apart`]) rather than by the commit that fills it:
    /// a commit that checkpoints holds the writers' turn for the copy and
    /// its sync, and a move waiting behind bulk work waits for that too.
    pub sqlite_checkpoints_apart: bool,
}

impl PoolSettings {
    pub fn for_backend(backend: Backend) -> PoolSettings {
        PoolSettings {
            max_size: match backend {
                Backend::Postgres => 16,
                Backend::Sqlite => 8,
            },
            connection_timeout: Duration::from_secs(5),
            sqlite_cache_mib: None,
            sqlite_checkpoints_apart: false,
        }
    }
}

/// Opens a pool on `url`.
pub fn connect(url: &str) -> anyhow::Result<DbPool> {
    connect_with(url, PoolSettings::for_backend(Backend::of_url(url)))
}

/// Opens a pool on `url` of the given size.
pub fn connect_with(url: &str, settings: PoolSettings) -> anyhow::Result<DbPool> {
    if Backend::of_url(url) == Backend::Sqlite {
        // WAL lets readers run beside the writer. The mode is kept in the
        // file; setting it from one connection first spares the pool's
        // connections a race for the lock it needs. That connection waits
        // too: another process may hold the file (its last connection
        // checkpointing as it closes, a long import).
        let mut conn =
            SqliteConnection::establish(url).with_context(|| format!("cannot open {url}"))?;
        for pragma in [BUSY_TIMEOUT, "PRAGMA journal_mode = WAL"] {
            diesel::sql_query(pragma)
                .execute(&mut conn)
                .with_context(|| format!("cannot set WAL mode on {url}"))?;
        }
    }
    pool_builder(settings)
        .build(manager(url, settings))
        .with_context(|| format!("cannot open the database at {url}"))
}

fn manager(url: &str, settings: PoolSettings) -> Manager {
    Manager {
        url: url.to_owned(),
        backend: Backend::of_url(url),
        sqlite_cache_mib: settings.sqlite_cache_mib,
        sqlite_checkpoints_apart: settings.sqlite_checkpoints_apart,
    }
}

/// Keeps [`checkpoint_apart`]'s thread checkpointing; it ends when this is
/// dropped.
#[derive(Debug)]
pub struct Checkpoints {
    _kept: Arc<()>,
}

/// How often [`checkpoint_apart`] copies SQLite's log into the database.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Copies the SQLite database's log into it every [`CHECKPOINT_EVERY`],
/// on a thread of its own and outside the writers' turn (a passive
/// checkpoint waits for no reader or writer), for a pool made with
/// `sqlite_checkpoints_apart`, for as long as the handle it returns is kept.
pub fn checkpoint_apart(url: &str) -> anyhow::Result<Checkpoints> {
    let mut conn =
        SqliteConnection::establish(url).with_context(|| format!("cannot open {url}"))?;
    diesel::sql_query(BUSY_TIMEOUT).execute(&mut conn)?;
    let kept = Arc::new(());
    let alive = Arc::downgrade(&kept);
    std::thread::Builder::new()
        .name("sqlite-checkpoints".to_owned())
        .spawn(move || {
            let mut failing = false;
            loop {
                std::thread::sleep(CHECKPOINT_EVERY);
                if alive.strong_count() == 0 {
                    return;
                }
                // While this fails (a full disk), the commits take over
                // once the log reaches their bound; said once, not each time.
                match diesel::sql_query("PRAGMA wal_checkpoint(PASSIVE)").execute(&mut conn) {
                    Err(error) if !failing => {
                        tracing::warn!(%error, "SQLite checkpoints failing");
                        failing = true;
                    }
                    Ok(_) if failing => {
                        tracing::info!("SQLite checkpoints working again");
                        failing = false;
                    }
                    _ => {}
                }
            }
        })?;
    Ok(Checkpoints { _kept: kept })
}

fn pool_builder(settings: PoolSettings) -> r2d2::Builder<Manager> {
    Pool::builder()
        .min_idle(Some(1))
        .max_size(settings.max_size)
        .connection_timeout(settings.connection_timeout)
}

/// Runs the migrations that `conn`'s database has not had yet.
pub fn run_migrations(conn: &mut DbConnection) -> anyhow::Result<usize> {
    let applied = match conn {
        DbConnection::Postgresql(pg) => pg
            .run_pending_migrations(POSTGRES_MIGRATIONS)
            .map(|v| v.len()),
        DbConnection::Sqlite(sqlite) => sqlite
            .run_pending_migrations(SQLITE_MIGRATIONS)
            .map(|v| v.len()),
    };
    applied.map_err(|e| anyhow::anyhow!(e).context("migrations failed"))
}

/// Reverts every migration: for tests of the `down.sql` files.
pub fn revert_all_migrations(conn: &mut DbConnection) -> anyhow::Result<usize> {
    let reverted = match conn {
        DbConnection::Postgresql(pg) => pg
            .revert_all_migrations(POSTGRES_MIGRATIONS)
            .map(|v| v.len()),
        DbConnection::Sqlite(sqlite) => sqlite
            .revert_all_migrations(SQLITE_MIGRATIONS)
            .map(|v| v.len()),
    };
    reverted.map_err(|e| anyhow::anyhow!(e).context("reverting migrations failed"))
}

/// Readies a connection for a long run of writes, such as `kingpost pgn
/// import`: on SQLite, a page cache of 24 MiB (the default is 2 MiB) keeps
/// the tails of the indexes being written in memory instead of reading them
/// back from the file at each insert (the position index, written at random,
/// is staged and sorted instead: `domain::pgn::index_staged`), and the log
/// is copied into the database every 64 MiB rather than every 4: a page
/// that many transactions rewrite (the tail of an index) is copied once.
/// Postgres sizes its cache itself.
pub fn for_bulk_writes(conn: &mut DbConnection) -> diesel::QueryResult<()> {
    if let DbConnection::Sqlite(sqlite) = conn {
        diesel::sql_query("PRAGMA cache_size = -24576").execute(sqlite)?;
        diesel::sql_query("PRAGMA wal_autocheckpoint = 16384").execute(sqlite)?;
        // Its sorts and temporary tables in files, not in memory.
        diesel::sql_query("PRAGMA temp_store = FILE").execute(sqlite)?;
    }
    Ok(())
}

#[derive(diesel::QueryableByName)]
struct TempStore {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    temp_store: i32,
}

#[derive(diesel::QueryableByName)]
struct CacheSize {
    #[diesel(sql_type = diesel::sql_types::Integer)]
    cache_size: i32,
}

/// Runs `work` with SQLite's sorts and temporary tables in temporary files
/// rather than in memory, and a page cache of 12 MiB: a sort of millions of
/// rows holds as much as the page cache in memory (SQLite sizes its sort
/// buffers so), the two together 24 MiB. Postgres spills past `work_mem`
/// itself.
pub fn sorting_on_disk<T, E>(
    conn: &mut DbConnection,
    work: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    // Setting the same temp_store again keeps the connection's temporary
    // tables; setting another drops them.
    let before = match conn {
        DbConnection::Sqlite(sqlite) => {
            let store = diesel::sql_query("PRAGMA temp_store")
                .get_result::<TempStore>(sqlite)?
                .temp_store;
            let cache = diesel::sql_query("PRAGMA cache_size")
                .get_result::<CacheSize>(sqlite)?
                .cache_size;
            diesel::sql_query("PRAGMA temp_store = FILE").execute(sqlite)?;
            diesel::sql_query("PRAGMA cache_size = -12288").execute(sqlite)?;
            Some((store, cache))
        }
        DbConnection::Postgresql(_) => None,
    };
    let done = work(conn);
    if let (DbConnection::Sqlite(sqlite), Some((store, cache))) = (conn, before) {
        diesel::sql_query(format!("PRAGMA temp_store = {store}")).execute(sqlite)?;
        diesel::sql_query(format!("PRAGMA cache_size = {cache}")).execute(sqlite)?;
    }
    done
}

/// Which of a staging table's rows a merge takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Portion {
    /// Every row: a bulk import's end, a server's start.
    All,
    /// On SQLite the first rows staged, as many as given, so that a merge
    /// in steps gives the writers' turn back between them; on Postgres,
    /// whose writers never wait for a merge, every row.
    First(i64),
}

/// What a merge of staged rows did: how many rows it took, and whether
/// some may be left (a portion as large as asked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    pub rows: usize,
    pub more: bool,
}

/// Runs `merge` (an `INSERT ... SELECT` from the staging table `table`
/// named `s`, whose rows imports appended, with `{portion}` where a
/// condition on `s` may follow) on `portion` of the rows, and forgets
/// them, in the caller's transaction.
pub fn merge_staging(
    conn: &mut DbConnection,
    table: &str,
    merge: &str,
    portion: Portion,
) -> diesel::QueryResult<Merged> {
    match (conn, portion) {
        (DbConnection::Sqlite(sqlite), Portion::First(rows)) => {
            // The table is a heap: its rowids are the order rows came in.
            let last = diesel::sql_query(format!(
                "SELECT MAX(rowid) AS last FROM (SELECT rowid FROM {table} ORDER BY rowid LIMIT {rows})"
            ))
            .get_result::<LastRow>(sqlite)?
            .last;
            let Some(last) = last else {
                return Ok(Merged {
                    rows: 0,
                    more: false,
                });
            };
            diesel::sql_query(merge.replace("{portion}", &format!("AND s.rowid <= {last}")))
                .execute(sqlite)?;
            let taken = diesel::sql_query(format!("DELETE FROM {table} WHERE rowid <= {last}"))
                .execute(sqlite)?;
            Ok(Merged {
                rows: taken,
                more: taken as i64 >= rows,
            })
        }
        (conn, _) => Ok(Merged {
            rows: merge_all(conn, table, &merge.replace("{portion}", ""))?,
            more: false,
        }),
    }
}

/// [`merge_staging`] of every row.
fn merge_all(conn: &mut DbConnection, table: &str, merge: &str) -> diesel::QueryResult<usize> {
    // Another import may be staging (a server starting during a CLI
    // import): its rows wait for this transaction, so that the table
    // emptied at its end holds only the rows merged. SQLite's writers take
    // turns already.
    if let DbConnection::Postgresql(pg) = conn {
        diesel::sql_query(format!("LOCK TABLE {table} IN EXCLUSIVE MODE")).execute(pg)?;
    }
    diesel::sql_query(merge).execute(conn)?;
    let staged = diesel::sql_query(format!("SELECT COUNT(*) AS staged FROM {table}"))
        .get_result::<Staged>(conn)?
        .staged;
    // Postgres gives a truncated table's space back at once, where a
    // delete leaves it to the vacuum; SQLite frees the pages of a table
    // deleted whole for the next import's rows.
    let empty = match conn {
        DbConnection::Postgresql(_) => format!("TRUNCATE {table}"),
        DbConnection::Sqlite(_) => format!("DELETE FROM {table}"),
    };
    diesel::sql_query(empty).execute(conn)?;
    Ok(usize::try_from(staged).unwrap_or(usize::MAX))
}

#[derive(diesel::QueryableByName)]
struct LastRow {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    last: Option<i64>,
}

#[derive(diesel::QueryableByName)]
struct Staged {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    staged: i64,
}

/// Brings the planner's statistics up to date after a bulk import: on
/// Postgres, an `ANALYZE` of the archive's tables, which autovacuum reaches
/// only once a tenth of a table has changed (a position search went from
/// 148 ms to 8.6 ms after one, at a million games). SQLite's planner is
/// left as the service runs it, without statistics.
pub fn refresh_statistics(conn: &mut DbConnection) -> diesel::QueryResult<()> {
    if let DbConnection::Postgresql(pg) = conn {
        diesel::sql_query(
            "ANALYZE games, game_positions, explorer_counts, collection_games, collections, game_notes",
        )
        .execute(pg)?;
    }
    Ok(())
}

/// Runs `query` on the backend's own connection: for statements the
/// shared connection type cannot run, such as inserts of many rows in one
/// statement and upserts.
pub fn execute_natively<Q>(conn: &mut DbConnection, query: Q) -> diesel::QueryResult<usize>
where
    Q: ExecuteDsl<PgConnection> + ExecuteDsl<SqliteConnection>,
{
    match conn {
        DbConnection::Postgresql(pg) => ExecuteDsl::execute(query, pg),
        DbConnection::Sqlite(sqlite) => ExecuteDsl::execute(query, sqlite),
    }
}

/// What bulk work asks between two of its items: whether to end its step
/// (commit, and give the writers' turn to a request that waits for it).
pub trait Yield {
    fn now(&self) -> bool;
}

/// Never yields: for work outside the SQLite writers' turn.
#[derive(Debug)]
pub struct NeverYield;

impl Yield for NeverYield {
    fn now(&self) -> bool {
        false
    }
}

/// Runs `f` in a transaction that writes. On SQLite the write lock is
/// taken first, so that a concurrent writer makes this one wait (up to the
/// busy timeout) instead of failing when it upgrades a read.
pub fn write_transaction<T, E>(
    conn: &mut DbConnection,
    f: impl FnOnce(&mut DbConnection) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<diesel::result::Error>,
{
    conn.transaction(|conn| {
        if let DbConnection::Sqlite(sqlite) = conn {
            // A write that changes nothing, kept prepared.
            let nothing = false.into_sql::<diesel::sql_types::Bool>();
            kept_update(
                schema::settings::table,
                nothing,
                schema::settings::key.eq(schema::settings::key),
            )
            .execute(sqlite)?;
        }
        f(conn)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opening a database waits for a lock another connection holds
    /// instead of failing at once: the CLI import started as another
    /// process's last connection closed failed so.
    #[test]
    fn opening_waits_for_another_connections_lock() {
        let dir = std::env::temp_dir().join(format!("kingpost-db-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = dir.join("locked.sqlite3");
        let url = url.to_str().unwrap().to_owned();
        let _ = std::fs::remove_file(&url);

        // A fresh file is in rollback mode, where an exclusive
        // transaction keeps every other connection out.
        let mut holder = SqliteConnection::establish(&url).unwrap();
        diesel::sql_query("BEGIN EXCLUSIVE")
            .execute(&mut holder)
            .unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            diesel::sql_query("COMMIT").execute(&mut holder).unwrap();
        });
        let opened = connect(&url);
        release.join().unwrap();
        let pool = opened.expect("the lock is released within the busy timeout");
        let mut conn = pool.get().unwrap();
        let DbConnection::Sqlite(sqlite) = &mut **conn else {
            panic!("a file path opens SQLite");
        };
        #[derive(diesel::QueryableByName)]
        struct Mode {
            #[diesel(sql_type = diesel::sql_types::Text)]
            journal_mode: String,
        }
        let mode: Mode = diesel::sql_query("PRAGMA journal_mode")
            .get_result(sqlite)
            .unwrap();
        assert_eq!(mode.journal_mode, "wal");
        drop(conn);
        drop(pool);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// With checkpoints apart, a commit leaves the log to the checkpoint
    /// thread (up to its bound), and the thread copies it into the
    /// database within moments, until its handle is dropped.
    #[test]
    fn a_thread_of_its_own_checkpoints_the_log() {
        let dir = std::env::temp_dir().join(format!("kingpost-db-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.sqlite3");
        let url = path.to_str().unwrap().to_owned();
        let settings = PoolSettings {
            sqlite_checkpoints_apart: true,
            ..PoolSettings::for_backend(Backend::Sqlite)
        };
        let pool = connect_with(&url, settings).unwrap();
        let mut conn = pool.get().unwrap();
        let DbConnection::Sqlite(sqlite) = &mut **conn else {
            panic!("a file path opens SQLite");
        };
        let file_size = || std::fs::metadata(&path).unwrap().len();
        let before = file_size();
        // About 8 MiB in one commit: past SQLite's own bound of 4 MiB, at
        // which the commit would have copied it itself.
        diesel::sql_query("CREATE TABLE filler (x BLOB)")
            .execute(sqlite)
            .unwrap();
        diesel::sql_query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) \
             INSERT INTO filler SELECT randomblob(4000) FROM n",
        )
        .execute(sqlite)
        .unwrap();
        assert!(
            file_size() < before + 1024 * 1024,
            "the commit checkpointed: the database grew from {before} to {} bytes",
            file_size()
        );
        let checkpoints = checkpoint_apart(&url).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while file_size() < 8_000_000 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            file_size() >= 8_000_000,
            "the log was not copied: {} bytes",
            file_size()
        );
        drop(checkpoints);
        drop(conn);
        drop(pool);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
