//! Conditional moves: a player's prepared lines in one game, and the game's
//! mark that some are held (`games.holds_conditionals`), written here with
//! them so that the two never disagree. Every writer holds the game's lock.

use diesel::{dsl::exists, prelude::*};

use crate::{
    db::{
        DbConnection,
        schema::{conditionals, games},
    },
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
    delete(conn, game_id, account_id)?;
    diesel::insert_into(conditionals::table)
        .values((
            conditionals::game_id.eq(game_id),
            conditionals::account_id.eq(account_id),
            conditionals::lines.eq(lines),
            conditionals::updated_at.eq(now),
        ))
        .execute(conn)?;
    diesel::update(games::table.find(game_id))
        .set(games::holds_conditionals.eq(true))
        .execute(conn)
        .map(|_| ())
}

/// Removes the lines of `account_id` in `game_id`; whether the game holds
/// any lines still.
pub fn remove(
    conn: &mut DbConnection,
    game_id: &GameId,
    account_id: &AccountId,
) -> QueryResult<bool> {
    delete(conn, game_id, account_id)?;
    let held = exists(conditionals::table.filter(conditionals::game_id.eq(game_id)));
    diesel::update(games::table.find(game_id))
        .set(games::holds_conditionals.eq(held))
        .returning(games::holds_conditionals)
        .get_result(conn)
}

fn delete(conn: &mut DbConnection, game_id: &GameId, account_id: &AccountId) -> QueryResult<()> {
    diesel::delete(conditionals::table.find((game_id, account_id)))
        .execute(conn)
        .map(|_| ())
}
