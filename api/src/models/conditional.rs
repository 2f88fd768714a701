//! Conditional moves: a player's prepared lines in one game.

use diesel::prelude::*;

use crate::{
    db::{DbConnection, schema::conditionals},
    stored::{AccountId, GameId},
};

/// The stored lines of `account_id` in `game_id`, as JSON.
pub fn find(
    conn: &mut DbConnection,
    game_id: &GameId,
    account_id: &AccountId,
) -> QueryResult<Option<String>> {
    conditionals::table
        .find((game_id, account_id))
        .select(conditionals::lines)
        .first(conn)
        .optional()
}

/// Replaces the lines (JSON) of `account_id` in `game_id`.
pub fn store(
    conn: &mut DbConnection,
    game_id: &GameId,
    account_id: &AccountId,
    lines: &str,
    now: i64,
) -> QueryResult<()> {
    remove(conn, game_id, account_id)?;
    diesel::insert_into(conditionals::table)
        .values((
            conditionals::game_id.eq(game_id),
            conditionals::account_id.eq(account_id),
            conditionals::lines.eq(lines),
            conditionals::updated_at.eq(now),
        ))
        .execute(conn)
        .map(|_| ())
}

pub fn remove(
    conn: &mut DbConnection,
    game_id: &GameId,
    account_id: &AccountId,
) -> QueryResult<bool> {
    diesel::delete(conditionals::table.find((game_id, account_id)))
        .execute(conn)
        .map(|n| n > 0)
}
