//! Migrations that carry data over: a database made before one keeps what
//! it held, on SQLite and on Postgres.

use diesel::{QueryDsl, RunQueryDsl, backend::Backend, migration::MigrationSource};
use diesel_migrations::{FileBasedMigrations, MigrationHarness};
use kingpost_api::db::{self, DbConnection, schema::games};

use crate::{on_both_databases, support::Db};

on_both_databases!(games_holding_conditional_lines_are_marked);

/// Runs the migrations in `dir` older than `version` on `conn`.
fn migrate_before<DB: Backend>(conn: &mut impl MigrationHarness<DB>, dir: &str, version: &str) {
    let path = format!("{}/../migrations/{dir}", env!("CARGO_MANIFEST_DIR"));
    let source = FileBasedMigrations::from_path(path).unwrap();
    let mut migrations = MigrationSource::<DB>::migrations(&source).unwrap();
    migrations.sort_by_key(|m| m.name().version().to_string());
    // A new database (asking makes the table of applied migrations).
    assert!(conn.applied_migrations().unwrap().is_empty());
    for migration in migrations
        .iter()
        .filter(|m| m.name().version().to_string().as_str() < version)
    {
        conn.run_migration(migration).unwrap();
    }
}

/// The mark a move reads before it reads any lines is set on the games
/// where a player held lines when the server was upgraded, and only there.
async fn games_holding_conditional_lines_are_marked(db: Db) {
    const MARK: &str = "20261203000019";
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    match &mut *conn {
        DbConnection::Sqlite(sqlite) => migrate_before(sqlite, "sqlite", MARK),
        DbConnection::Postgresql(pg) => migrate_before(pg, "postgres", MARK),
    }
    for statement in [
        "INSERT INTO accounts (id, username, username_key, password_hash, created_at) \
         VALUES ('a1', 'alice', 'alice', 'x', 0)",
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, white_name, black_name, days_per_move, created_at, updated_at, turn_started_at) \
         VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 1, 'started', 'w', 'b', 3, 0, 0, 0), \
                ('g2', 'standard', 'standard', 'start', 1, 'now', 1, 'started', 'w', 'b', 3, 0, 0, 0)",
        "INSERT INTO conditionals (game_id, account_id, lines, updated_at) \
         VALUES ('g2', 'a1', '{\"lines\":[]}', 0)",
    ] {
        diesel::sql_query(statement).execute(conn).unwrap();
    }
    db::run_migrations(conn).unwrap();
    let marks: Vec<(String, bool)> = games::table
        .select((games::id, games::holds_conditionals))
        .order(games::id)
        .load(conn)
        .unwrap();
    assert_eq!(marks, [("g1".to_owned(), false), ("g2".to_owned(), true)]);
}
