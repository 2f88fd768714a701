//! SQLite as the server runs it: built as `.cargo/config.toml` asks, and
//! planning the game lookups along their indexes.

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

#[derive(diesel::QueryableByName)]
struct PlanStep {
    #[diesel(sql_type = diesel::sql_types::Text)]
    detail: String,
}

/// A player's lists and the sweep read their games through indexes, on a
/// database without planner statistics (as every new one is): a player's
/// games by the player indexes, never every game under way; the sweep's
/// pages in the index's order.
#[test]
fn game_lookups_use_their_indexes() {
    let db = Db::sqlite();
    let pool = db::connect(&db.url()).unwrap();
    let mut conn = pool.get().unwrap();
    db::run_migrations(&mut conn).unwrap();
    let DbConnection::Sqlite(conn) = &mut **conn else {
        unreachable!("an SQLite URL opens SQLite");
    };
    let player = "(white_id = ? OR black_id = ?) AND status = ?";
    // A page of the sweep after the last one's (deadline, id).
    let sweep =
        "status = ? AND deadline_at >= ? AND (deadline_at > ? OR id > ?) AND deadline_at < ?";
    let cases = [
        (
            format!("SELECT * FROM games WHERE {player} ORDER BY deadline_at, id LIMIT 20"),
            &["games_by_white", "games_by_black"][..],
        ),
        (
            format!("SELECT count(*) FROM games WHERE {player} AND to_move_id = ?"),
            &["games_by_white", "games_by_black"],
        ),
        (
            format!("SELECT * FROM games WHERE {sweep} ORDER BY deadline_at, id LIMIT 500"),
            &["games_by_deadline"],
        ),
    ];
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
        if query.contains("LIMIT 500") {
            // The index gives the order: no sort of every game past its deadline.
            assert!(
                !details.iter().any(|d| d.contains("TEMP B-TREE")),
                "{query}: {details:?}"
            );
        }
    }
}
