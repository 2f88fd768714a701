//! The moves of games stored before they were packed in their rows
//! (migration 30 renamed their table `legacy_moves`): read once, by the
//! server's first start after the migration, and dropped when all are
//! packed.

use diesel::{
    prelude::*,
    sql_types::{BigInt, Integer, Nullable, Text},
};

use crate::{
    db::{DbConnection, schema::games},
    stored::GameId,
};

/// A stored move of a game not packed yet.
#[derive(Debug, QueryableByName)]
pub struct LegacyMove {
    #[diesel(sql_type = Text)]
    pub game_id: String,
    #[diesel(sql_type = Integer)]
    pub ply: i32,
    #[diesel(sql_type = Text)]
    pub uci: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    pub played_at: Option<i64>,
}

#[derive(Debug, QueryableByName)]
struct Found {
    #[diesel(sql_type = BigInt)]
    found: i64,
}

#[derive(Debug, QueryableByName)]
struct Game {
    #[diesel(sql_type = Text)]
    game_id: String,
}

/// Whether moves not packed yet may remain: the table is there.
pub fn remain(conn: &mut DbConnection) -> QueryResult<bool> {
    let query = match conn {
        DbConnection::Postgresql(_) => {
            "SELECT COUNT(*) AS found FROM pg_tables \
             WHERE schemaname = current_schema() AND tablename = 'legacy_moves'"
        }
        DbConnection::Sqlite(_) => {
            "SELECT COUNT(*) AS found FROM sqlite_master \
             WHERE type = 'table' AND name = 'legacy_moves'"
        }
    };
    let found: Found = diesel::sql_query(query).get_result(conn)?;
    Ok(found.found > 0)
}

/// Up to `limit` games with moves not packed yet, by id.
pub fn games(conn: &mut DbConnection, limit: i64) -> QueryResult<Vec<GameId>> {
    let games: Vec<Game> =
        diesel::sql_query("SELECT DISTINCT game_id FROM legacy_moves ORDER BY game_id LIMIT $1")
            .bind::<BigInt, _>(limit)
            .load(conn)?;
    Ok(games.into_iter().map(|g| GameId::from(g.game_id)).collect())
}

/// The moves of game `id` not packed yet, in order of ply.
pub fn moves_of(conn: &mut DbConnection, id: &GameId) -> QueryResult<Vec<LegacyMove>> {
    diesel::sql_query(
        "SELECT game_id, ply, uci, played_at FROM legacy_moves WHERE game_id = $1 ORDER BY ply",
    )
    .bind::<Text, _>(id.as_str())
    .load(conn)
}

/// Stores the packed moves of game `id` and forgets its legacy rows.
pub fn replace(
    conn: &mut DbConnection,
    id: &GameId,
    moves: &[u8],
    times: Option<&[u8]>,
) -> QueryResult<()> {
    diesel::update(games::table.find(id))
        .set((games::moves.eq(moves), games::move_times.eq(times)))
        .execute(conn)?;
    diesel::sql_query("DELETE FROM legacy_moves WHERE game_id = $1")
        .bind::<Text, _>(id.as_str())
        .execute(conn)?;
    Ok(())
}

/// Drops the table once every game's moves are packed.
pub fn drop_table(conn: &mut DbConnection) -> QueryResult<()> {
    diesel::sql_query("DROP TABLE IF EXISTS legacy_moves")
        .execute(conn)
        .map(|_| ())
}
