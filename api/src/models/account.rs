//! Accounts.

use diesel::prelude::*;

use crate::db::{DbConnection, schema::accounts};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts)]
pub struct Account {
    pub id: String,
    pub username: String,
    pub username_key: String,
    pub password_hash: String,
    pub created_at: i64,
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

pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<Account>> {
    accounts::table
        .find(id)
        .select(Account::as_select())
        .first(conn)
        .optional()
}

/// Usernames of the given accounts, for views.
pub fn usernames(conn: &mut DbConnection, ids: &[&str]) -> QueryResult<Vec<(String, String)>> {
    accounts::table
        .filter(accounts::id.eq_any(ids))
        .select((accounts::id, accounts::username))
        .load(conn)
}
