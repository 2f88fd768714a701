//! How often each game of a bulk import has appeared so far in its file,
//! by a hash of its import key, in a temporary table of the import's
//! connection: the import's memory does not grow with the file (a
//! national database holds millions of games).

use diesel::{prelude::*, sql_types::BigInt};

use crate::db::{DbConnection, MultiBackend};

/// Makes the table, for this connection, unless it has it.
pub fn create(conn: &mut DbConnection) -> QueryResult<()> {
    diesel::sql_query(
        "CREATE TEMPORARY TABLE IF NOT EXISTS import_appearances \
         (key BIGINT PRIMARY KEY NOT NULL, times BIGINT NOT NULL)",
    )
    .execute(conn)
    .map(|_| ())
}

#[derive(Debug, QueryableByName)]
struct Total {
    #[diesel(sql_type = BigInt)]
    key: i64,
    #[diesel(sql_type = BigInt)]
    times: i64,
}

/// Adds `counts` (a key, and how often it appears in the games being
/// stored; each key once): each key's appearances so far, these included.
pub fn add(conn: &mut DbConnection, counts: &[(i64, i64)]) -> QueryResult<Vec<(i64, i64)>> {
    if counts.is_empty() {
        return Ok(Vec::new());
    }
    let values: Vec<String> = (0..counts.len())
        .map(|i| format!("(${}, ${})", 2 * i + 1, 2 * i + 2))
        .collect();
    let mut query = diesel::sql_query(format!(
        "INSERT INTO import_appearances (key, times) VALUES {} \
         ON CONFLICT (key) DO UPDATE SET times = import_appearances.times + excluded.times \
         RETURNING key, times",
        values.join(", ")
    ))
    .into_boxed::<MultiBackend>();
    for &(key, times) in counts {
        query = query.bind::<BigInt, _>(key).bind::<BigInt, _>(times);
    }
    let totals: Vec<Total> = query.load(conn)?;
    Ok(totals.into_iter().map(|t| (t.key, t.times)).collect())
}
