//! SQLite as the server runs it: built as `.cargo/config.toml` asks, and
//! planning the game lookups along their indexes.

use std::sync::{Arc, Mutex};

use diesel::{
    Connection, RunQueryDsl,
    connection::{Instrumentation, InstrumentationEvent},
    dsl::sql,
    sql_types::Bool,
};
use kingpost_api::{
    db::{self, DbConnection},
    models::game::{self, Listing},
};

use crate::support::Db;

/// Without the query planner stability guarantee, SQLite compiles a
/// statement again each time a value bound to its LIMIT changes (most
/// lookups of a move request): the flag must reach the build.
#[test]
fn sqlite_plans_each_statement_once() {
    let db = Db::sqlite();
    let pool = db::connect(&db.url()).unwrap();
    let DbConnection::Sqlite(conn) = &mut **pool.get().unwrap() else {
        unreachable!("an SQLite URL opens SQLite");
    };
    let qpsg: bool = diesel::select(sql::<Bool>(
        "EXISTS (SELECT 1 FROM pragma_compile_options WHERE compile_options = 'ENABLE_QPSG')",
    ))
    .get_result(conn)
    .unwrap();
    assert!(qpsg, "SQLite was built without SQLITE_ENABLE_QPSG");
}

#[derive(diesel::QueryableByName, Debug)]
struct PlanStep {
    #[diesel(sql_type = diesel::sql_types::Text)]
    detail: String,
}

/// The SQL of every statement run on a connection, without its values.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Instrumentation for Recorder {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            let text = query.to_string();
            let sql = text
                .split_once(" -- binds: ")
                .map_or(&*text, |(sql, _)| sql);
            self.0.lock().unwrap().push(sql.to_owned());
        }
    }
}

/// A player's lists and the sweep read their games through indexes, on a
/// database without planner statistics (as every new one is): a player's
/// games by the player indexes, never every game under way; the sweep's
/// pages in the index's order. The statements are the ones the service
/// runs, recorded as its own functions make them.
#[test]
fn game_lookups_use_their_indexes() {
    let db = Db::sqlite();
    let pool = db::connect(&db.url()).unwrap();
    let mut conn = pool.get().unwrap();
    db::run_migrations(&mut conn).unwrap();
    let recorded = Recorder::default();
    conn.set_instrumentation(recorded.clone());
    let player = "p".into();
    let after = (5, "g".to_owned());
    let mut ran = |run: &mut dyn FnMut(&mut DbConnection)| -> String {
        recorded.0.lock().unwrap().clear();
        run(&mut conn);
        let statements = recorded.0.lock().unwrap().clone();
        let [statement] = statements.as_slice() else {
            panic!("one statement: {statements:?}");
        };
        statement.clone()
    };
    let cases = [
        (
            ran(&mut |conn| {
                game::list(conn, &player, Listing::Ongoing, Some(after.clone()), 20).unwrap();
            }),
            &["games_by_white", "games_by_black"][..],
        ),
        (
            ran(&mut |conn| {
                game::list(conn, &player, Listing::MyTurn, Some(after.clone()), 20).unwrap();
            }),
            &["games_by_white", "games_by_black"],
        ),
        (
            ran(&mut |conn| {
                game::count_my_turn(conn, &player).unwrap();
            }),
            &["games_by_white", "games_by_black"],
        ),
        (
            ran(&mut |conn| {
                game::past_deadline(conn, 1_000, Some(&after), 500).unwrap();
            }),
            &["games_by_deadline"],
        ),
    ];
    let DbConnection::Sqlite(conn) = &mut **conn else {
        unreachable!("an SQLite URL opens SQLite");
    };
    for (query, indexes) in cases {
        let mut explain = diesel::sql_query(format!("EXPLAIN QUERY PLAN {query}")).into_boxed();
        for _ in 0..query.matches('?').count() {
            explain = explain.bind::<diesel::sql_types::Text, _>("x");
        }
        let plan: Vec<PlanStep> = explain.load(conn).unwrap();
        let details: Vec<&str> = plan.iter().map(|step| step.detail.as_str()).collect();
        for index in indexes {
            assert!(
                details
                    .iter()
                    .any(|d| d.contains(&format!("USING INDEX {index} "))),
                "{query}: {details:?}"
            );
        }
        assert!(
            !details.iter().any(|d| d.starts_with("SCAN games")),
            "{query}: {details:?}"
        );
        if indexes == ["games_by_deadline"] {
            // The index gives the order: no sort of every game past its deadline.
            assert!(
                !details.iter().any(|d| d.contains("TEMP B-TREE")),
                "{query}: {details:?}"
            );
        }
    }
}

#[derive(diesel::QueryableByName, Debug, PartialEq)]
struct StoredMove {
    #[diesel(sql_type = diesel::sql_types::Text)]
    game_id: String,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    ply: i32,
    #[diesel(sql_type = diesel::sql_types::Text)]
    san: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    position_key: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    played_at: Option<i64>,
}

/// The migration that stores the moves by their key (without a rowid)
/// keeps every move of a database made before it, and the position index.
#[test]
fn moves_stored_by_game_keep_their_rows() {
    use diesel::migration::MigrationSource;
    use diesel_migrations::{FileBasedMigrations, MigrationHarness};

    const BY_GAME: &str = "20261202000018";
    const PACKED: &str = "20261205000030";
    let db = Db::sqlite();
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let DbConnection::Sqlite(conn) = &mut **pooled else {
        unreachable!("an SQLite URL opens SQLite");
    };
    let source = FileBasedMigrations::from_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../migrations/sqlite"
    ))
    .unwrap();
    let mut migrations = MigrationSource::<diesel::sqlite::Sqlite>::migrations(&source).unwrap();
    migrations.sort_by_key(|m| m.name().version().to_string());
    assert!(conn.applied_migrations().unwrap().is_empty());
    for migration in migrations
        .iter()
        .filter(|m| m.name().version().to_string().as_str() < BY_GAME)
    {
        conn.run_migration(migration).unwrap();
    }
    diesel::sql_query(
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, white_name, black_name, days_per_move, created_at, updated_at) \
         VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 2, 'imported', 'w', 'b', 0, 0, 0)",
    )
    .execute(conn)
    .unwrap();
    diesel::sql_query(
        "INSERT INTO moves (game_id, ply, uci, san, position_key, played_at) \
         VALUES ('g1', 2, 'e7e5', 'e5', -7, NULL), ('g1', 1, 'e2e4', 'e4', 42, 1000)",
    )
    .execute(conn)
    .unwrap();
    let stored = |conn: &mut diesel::SqliteConnection| -> Vec<StoredMove> {
        diesel::sql_query("SELECT * FROM moves ORDER BY game_id, ply")
            .load(conn)
            .unwrap()
    };
    let without_rowid = |conn: &mut diesel::SqliteConnection| -> bool {
        diesel::select(sql::<Bool>(
            "(SELECT wr FROM pragma_table_list WHERE name = 'moves') = 1",
        ))
        .get_result(conn)
        .unwrap()
    };
    let before = stored(conn);
    assert_eq!(before.len(), 2);
    assert!(
        !without_rowid(conn),
        "the migration ran before the moves were stored"
    );

    // Up to the migration that packs the moves in their games (30).
    for migration in migrations.iter().filter(|m| {
        let version = m.name().version().to_string();
        (BY_GAME..PACKED).contains(&version.as_str())
    }) {
        conn.run_migration(migration).unwrap();
    }
    assert_eq!(stored(conn), before);
    assert!(without_rowid(conn), "the moves table still has a rowid");
    let plan: Vec<PlanStep> = diesel::sql_query(
        "EXPLAIN QUERY PLAN SELECT game_id, ply FROM moves WHERE position_key = 42",
    )
    .load(conn)
    .unwrap();
    assert!(
        plan.iter()
            .any(|step| step.detail.contains("moves_by_position")),
        "{plan:?}"
    );
}

#[derive(diesel::QueryableByName)]
struct CacheSize {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    cache_size: i64,
}

/// The page cache of a connection: negative in KiB, as set.
fn cache_size(conn: &mut DbConnection) -> i64 {
    let DbConnection::Sqlite(conn) = conn else {
        unreachable!("an SQLite URL opens SQLite");
    };
    diesel::sql_query("PRAGMA cache_size")
        .get_result::<CacheSize>(conn)
        .unwrap()
        .cache_size
}

/// An operator's page cache (`--sqlite-cache-mib`) reaches every
/// connection the pool opens, not only the first; without it, SQLite's
/// default of 2,000 KiB stands.
#[test]
fn the_page_cache_set_reaches_every_connection() {
    let db = Db::sqlite();
    let default = db::connect(&db.url()).unwrap();
    assert_eq!(cache_size(&mut default.get().unwrap()), -2000);
    let settings = db::PoolSettings {
        sqlite_cache_mib: Some(64),
        ..db::PoolSettings::for_backend(db::Backend::Sqlite)
    };
    let pool = db::connect_with(&db.url(), settings).unwrap();
    let mut held: Vec<_> = (0..3).map(|_| pool.get().unwrap()).collect();
    for conn in &mut held {
        assert_eq!(cache_size(conn), -64 * 1024);
    }
}
