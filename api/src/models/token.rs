//! Issued JWTs (by `jti`) and refresh tokens (by digest).

use diesel::prelude::*;

use crate::{
    clock::Millis,
    credentials::{Scope, TokenKind},
    db::{
        DbConnection,
        schema::{accounts, refresh_tokens, tokens},
    },
    stored::{AccountId, KeyList, TokenId},
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = tokens)]
pub struct Token {
    pub id: TokenId,
    pub account_id: AccountId,
    pub kind: TokenKind,
    pub name: Option<String>,
    pub scopes: KeyList<Scope>,
    pub created_at: i64,
    pub expires_at: i64,
    pub revoked_at: Option<i64>,
    /// The sign-in of a session's token.
    pub family: Option<String>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = refresh_tokens)]
pub struct RefreshToken {
    pub id: String,
    pub account_id: AccountId,
    pub family: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

pub fn insert(conn: &mut DbConnection, token: &Token) -> QueryResult<()> {
    diesel::insert_into(tokens::table)
        .values(token)
        .execute(conn)
        .map(|_| ())
}

/// A live token and what a request needs of its owner.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = tokens)]
pub struct LiveToken {
    #[diesel(embed)]
    pub token: Token,
    #[diesel(select_expression = accounts::username)]
    pub username: String,
    #[diesel(select_expression = accounts::last_active_at)]
    pub last_active_at: Option<i64>,
}

/// The token with this `jti` and its owner, if neither revoked nor expired.
pub fn find_live(
    conn: &mut DbConnection,
    id: &TokenId,
    now: Millis,
) -> QueryResult<Option<LiveToken>> {
    tokens::table
        .inner_join(accounts::table.on(accounts::id.eq(tokens::account_id)))
        .filter(tokens::id.eq(id))
        .filter(tokens::revoked_at.is_null())
        .filter(tokens::expires_at.gt(now))
        .select(LiveToken::as_select())
        .first(conn)
        .optional()
}

/// An account's personal tokens that are still live, newest first.
pub fn list_personal(
    conn: &mut DbConnection,
    account_id: &AccountId,
    now: Millis,
) -> QueryResult<Vec<Token>> {
    tokens::table
        .filter(tokens::account_id.eq(account_id))
        .filter(tokens::kind.eq(TokenKind::Personal))
        .filter(tokens::revoked_at.is_null())
        .filter(tokens::expires_at.gt(now))
        .order((tokens::created_at.desc(), tokens::id))
        .select(Token::as_select())
        .load(conn)
}

/// Revokes one of an account's tokens; whether there was such a live token.
pub fn revoke(
    conn: &mut DbConnection,
    account_id: &AccountId,
    id: &TokenId,
    now: Millis,
) -> QueryResult<bool> {
    diesel::update(
        tokens::table
            .filter(tokens::id.eq(id))
            .filter(tokens::account_id.eq(account_id))
            .filter(tokens::revoked_at.is_null()),
    )
    .set(tokens::revoked_at.eq(now))
    .execute(conn)
    .map(|n| n == 1)
}

pub fn insert_refresh(conn: &mut DbConnection, token: &RefreshToken) -> QueryResult<()> {
    diesel::insert_into(refresh_tokens::table)
        .values(token)
        .execute(conn)
        .map(|_| ())
}

pub fn find_refresh(conn: &mut DbConnection, digest: &str) -> QueryResult<Option<RefreshToken>> {
    refresh_tokens::table
        .find(digest)
        .select(RefreshToken::as_select())
        .first(conn)
        .optional()
}

/// Marks a refresh token used, if nobody used it first; whether this call did.
pub fn use_refresh(conn: &mut DbConnection, digest: &str, now: Millis) -> QueryResult<bool> {
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::id.eq(digest))
            .filter(refresh_tokens::used_at.is_null()),
    )
    .set(refresh_tokens::used_at.eq(now))
    .execute(conn)
    .map(|n| n == 1)
}

/// Revokes every token of a sign-in: its refresh tokens and its sessions'
/// access tokens.
pub fn revoke_family(conn: &mut DbConnection, family: &str, now: Millis) -> QueryResult<usize> {
    let refresh = diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::family.eq(family))
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set(refresh_tokens::revoked_at.eq(now))
    .execute(conn)?;
    let access = diesel::update(
        tokens::table
            .filter(tokens::family.eq(family))
            .filter(tokens::revoked_at.is_null()),
    )
    .set(tokens::revoked_at.eq(now))
    .execute(conn)?;
    Ok(refresh + access)
}

/// Revokes every sign-in of an account but the one of family `keep`: their
/// refresh tokens and their sessions' access tokens. Personal tokens stay.
pub fn revoke_other_sign_ins(
    conn: &mut DbConnection,
    account_id: &AccountId,
    keep: &str,
    now: Millis,
) -> QueryResult<usize> {
    let refresh = diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::account_id.eq(account_id))
            .filter(refresh_tokens::family.ne(keep))
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set(refresh_tokens::revoked_at.eq(now))
    .execute(conn)?;
    let access = diesel::update(
        tokens::table
            .filter(tokens::account_id.eq(account_id))
            .filter(tokens::kind.eq(TokenKind::Session))
            .filter(tokens::family.ne(keep).or(tokens::family.is_null()))
            .filter(tokens::revoked_at.is_null()),
    )
    .set(tokens::revoked_at.eq(now))
    .execute(conn)?;
    Ok(refresh + access)
}
