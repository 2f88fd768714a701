//! Accounts.

use diesel::prelude::*;

use crate::{
    db::{DbConnection, kept_update, schema::accounts},
    stored::AccountId,
};

#[derive(Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts)]
pub struct Account {
    pub id: AccountId,
    pub username: String,
    pub username_key: String,
    pub password_hash: String,
    pub created_at: i64,
    /// Vacation time left, in milliseconds.
    pub vacation_balance: i64,
    /// When the next month's vacation is granted.
    pub vacation_next_grant_at: i64,
    /// The start of the vacation under way.
    pub vacation_since: Option<i64>,
    /// When the account last acted in a game.
    pub last_active_at: Option<i64>,
    /// When the account was deleted.
    pub deleted_at: Option<i64>,
    /// A BOT account: an engine, playing through the Bot API.
    pub bot: bool,
    /// Online until then: kept ahead of now while a stream of the account
    /// is open.
    pub online_until: Option<i64>,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id)
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// The key that makes usernames unique regardless of case.
pub fn username_key(username: &str) -> String {
    username.to_ascii_lowercase()
}

pub fn insert(conn: &mut DbConnection, account: &Account) -> QueryResult<()> {
    diesel::insert_into(accounts::table)
        .values(account)
        .execute(conn)
        .map(|_| ())
}

pub fn find_by_username(conn: &mut DbConnection, username: &str) -> QueryResult<Option<Account>> {
    accounts::table
        .filter(accounts::username_key.eq(username_key(username)))
        .select(Account::as_select())
        .first(conn)
        .optional()
}

pub fn find(conn: &mut DbConnection, id: &AccountId) -> QueryResult<Option<Account>> {
    accounts::table
        .find(id)
        .select(Account::as_select())
        .first(conn)
        .optional()
}

/// Two accounts, or one given twice: a game's players. One statement's
/// form, which the connection keeps prepared (a list of ids is `IN (...)`
/// on SQLite, prepared anew for each use).
pub fn find_pair(
    conn: &mut DbConnection,
    first: &AccountId,
    second: &AccountId,
) -> QueryResult<Vec<Account>> {
    accounts::table
        .filter(accounts::id.eq(first).or(accounts::id.eq(second)))
        .select(Account::as_select())
        .load(conn)
}

/// Usernames of the given accounts, for views.
pub fn usernames(
    conn: &mut DbConnection,
    ids: &[&AccountId],
) -> QueryResult<Vec<(AccountId, String)>> {
    accounts::table
        .filter(accounts::id.eq_any(ids))
        .select((accounts::id, accounts::username))
        .load(conn)
}

/// Which of `ids` are BOT accounts: for the lists that mark them.
pub fn bots_among(conn: &mut DbConnection, ids: &[&AccountId]) -> QueryResult<Vec<AccountId>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    accounts::table
        .filter(accounts::id.eq_any(ids))
        .filter(accounts::bot.eq(true))
        .select(accounts::id)
        .load(conn)
}

/// Stores an account's vacation state.
pub fn set_vacation(
    conn: &mut DbConnection,
    id: &AccountId,
    balance: i64,
    next_grant_at: i64,
    since: Option<i64>,
) -> QueryResult<()> {
    diesel::update(accounts::table.find(id))
        .set((
            accounts::vacation_balance.eq(balance),
            accounts::vacation_next_grant_at.eq(next_grant_at),
            accounts::vacation_since.eq(since),
        ))
        .execute(conn)
        .map(|_| ())
}

/// How old an account's last activity may grow before an action writes it
/// again: profiles show it to the minute, and a player moving in several
/// games within one rewrites nothing (on Postgres, each write is a new row
/// version and its WAL).
const ACTIVITY_GRAIN: i64 = 60_000;

/// Whether an activity at `last_active_at` is recent enough that [`touch`]
/// would leave it.
pub fn is_recent(last_active_at: Option<i64>, now: i64) -> bool {
    last_active_at.is_some_and(|at| at > now - ACTIVITY_GRAIN)
}

/// Notes that the account acted in a game now (to the minute).
pub fn touch(conn: &mut DbConnection, id: &AccountId, now: i64) -> QueryResult<()> {
    let stale = accounts::last_active_at
        .is_null()
        .or(accounts::last_active_at.le(now - ACTIVITY_GRAIN));
    let filter = accounts::id.eq(id).and(stale);
    kept_update(accounts::table, filter, accounts::last_active_at.eq(now))
        .execute(conn)
        .map(|_| ())
}

/// Sets an account's password hash.
pub fn set_password_hash(conn: &mut DbConnection, id: &AccountId, hash: &str) -> QueryResult<()> {
    diesel::update(accounts::table.find(id))
        .set(accounts::password_hash.eq(hash))
        .execute(conn)
        .map(|_| ())
}

/// Marks `ids` online until `until`, a statement per few hundred.
pub fn mark_online(conn: &mut DbConnection, ids: &[AccountId], until: i64) -> QueryResult<()> {
    for chunk in ids.chunks(500) {
        diesel::update(accounts::table.filter(accounts::id.eq_any(chunk)))
            .set(accounts::online_until.eq(until))
            .execute(conn)?;
    }
    Ok(())
}

/// The accounts of `usernames` (any case), those that exist.
pub fn find_by_usernames(conn: &mut DbConnection, usernames: &[&str]) -> QueryResult<Vec<Account>> {
    let keys: Vec<String> = usernames.iter().map(|name| username_key(name)).collect();
    accounts::table
        .filter(accounts::username_key.eq_any(keys))
        .select(Account::as_select())
        .load(conn)
}

/// Up to `limit` BOT accounts online at `now`, by name.
pub fn bots_online(conn: &mut DbConnection, now: i64, limit: i64) -> QueryResult<Vec<Account>> {
    accounts::table
        .filter(accounts::bot.eq(true))
        .filter(accounts::online_until.gt(now))
        .filter(accounts::deleted_at.is_null())
        .order(accounts::username_key)
        .limit(limit)
        .select(Account::as_select())
        .load(conn)
}

/// Makes the account a BOT, for good.
pub fn make_bot(conn: &mut DbConnection, id: &AccountId) -> QueryResult<()> {
    diesel::update(accounts::table.find(id))
        .set(accounts::bot.eq(true))
        .execute(conn)
        .map(drop)
}
