//! The bundled SQLite is built as `.cargo/config.toml` asks.

use diesel::{RunQueryDsl, dsl::sql, sql_types::Bool};
use kingpost_api::db::{self, DbConnection};

use crate::support::Db;

/// Without the query planner stability guarantee, SQLite compiles a
/// statement again each time a value bound to its LIMIT changes (most
/// lookups of a move request): the flag must reach the build.
#[test]
fn sqlite_plans_each_statement_once() {
    let db = Db::sqlite();
    let pool = db::connect(&db.url()).unwrap();
    let DbConnection::Sqlite(conn) = &mut *pool.get().unwrap() else {
        unreachable!("an SQLite URL opens SQLite");
    };
    let qpsg: bool = diesel::select(sql::<Bool>(
        "EXISTS (SELECT 1 FROM pragma_compile_options WHERE compile_options = 'ENABLE_QPSG')",
    ))
    .get_result(conn)
    .unwrap();
    assert!(qpsg, "SQLite was built without SQLITE_ENABLE_QPSG");
}
