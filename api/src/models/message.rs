//! What the two players of a game say to each other, and whom an account
//! has muted.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{accounts, messages, mutes},
    },
    stored::{AccountId, GameId},
};

/// A message as stored.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = messages)]
pub struct MessageRow {
    pub id: i64,
    pub game_id: GameId,
    pub author_id: AccountId,
    pub ply: i32,
    pub body: String,
    pub created_at: i64,
}

/// A message to store.
#[derive(Debug, Insertable)]
#[diesel(table_name = messages)]
pub struct NewMessage<'a> {
    pub game_id: &'a GameId,
    pub author_id: &'a AccountId,
    pub ply: i32,
    pub body: &'a str,
    pub created_at: i64,
}

/// Stores a message; its id.
pub fn insert(conn: &mut DbConnection, message: &NewMessage<'_>) -> QueryResult<i64> {
    diesel::insert_into(messages::table)
        .values(message)
        .returning(messages::id)
        .get_result(conn)
}

/// A game's messages after `after`, oldest first, with their authors'
/// names; none by `hidden` (an author the reader has muted).
pub fn of_game(
    conn: &mut DbConnection,
    game_id: &GameId,
    hidden: Option<&AccountId>,
    after: i64,
    limit: i64,
) -> QueryResult<Vec<(MessageRow, String)>> {
    let mut query = messages::table
        .inner_join(accounts::table)
        .filter(messages::game_id.eq(game_id))
        .filter(messages::id.gt(after))
        .order(messages::id)
        .limit(limit)
        .select((MessageRow::as_select(), accounts::username))
        .into_boxed();
    if let Some(hidden) = hidden {
        query = query.filter(messages::author_id.ne(hidden));
    }
    query.load(conn)
}

/// The id of a game's last message, if it has one.
pub fn last_id(conn: &mut DbConnection, game_id: &GameId) -> QueryResult<Option<i64>> {
    messages::table
        .filter(messages::game_id.eq(game_id))
        .select(diesel::dsl::max(messages::id))
        .first(conn)
}

/// How many messages `author` wrote at or after `since`.
pub fn count_since(conn: &mut DbConnection, author: &AccountId, since: i64) -> QueryResult<i64> {
    messages::table
        .filter(messages::author_id.eq(author))
        .filter(messages::created_at.ge(since))
        .count()
        .get_result(conn)
}

/// When the first message `author` wrote at or after `since` was written.
pub fn first_since(
    conn: &mut DbConnection,
    author: &AccountId,
    since: i64,
) -> QueryResult<Option<i64>> {
    messages::table
        .filter(messages::author_id.eq(author))
        .filter(messages::created_at.ge(since))
        .select(diesel::dsl::min(messages::created_at))
        .get_result(conn)
}

/// Whether `account` has muted `other`.
pub fn mutes(conn: &mut DbConnection, account: &AccountId, other: &AccountId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        mutes::table
            .filter(mutes::account_id.eq(account))
            .filter(mutes::muted_id.eq(other)),
    ))
    .get_result(conn)
}

/// Mutes `muted` for `account` (again: nothing changes).
pub fn mute(
    conn: &mut DbConnection,
    account: &AccountId,
    muted: &AccountId,
    now: i64,
) -> QueryResult<()> {
    let insert = diesel::insert_into(mutes::table)
        .values((
            mutes::account_id.eq(account),
            mutes::muted_id.eq(muted),
            mutes::created_at.eq(now),
        ))
        .on_conflict_do_nothing();
    execute_natively(conn, insert).map(|_| ())
}

/// Unmutes `muted` for `account`; whether it was muted.
pub fn unmute(
    conn: &mut DbConnection,
    account: &AccountId,
    muted: &AccountId,
) -> QueryResult<bool> {
    diesel::delete(
        mutes::table
            .filter(mutes::account_id.eq(account))
            .filter(mutes::muted_id.eq(muted)),
    )
    .execute(conn)
    .map(|deleted| deleted > 0)
}

/// The names of the accounts `account` has muted, alphabetically.
pub fn muted_by(conn: &mut DbConnection, account: &AccountId) -> QueryResult<Vec<String>> {
    mutes::table
        .inner_join(accounts::table.on(accounts::id.eq(mutes::muted_id)))
        .filter(mutes::account_id.eq(account))
        .order(accounts::username_key)
        .select(accounts::username)
        .load(conn)
}
