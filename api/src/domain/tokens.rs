//! Personal access tokens: made from a signed-in session with chosen
//! scopes, for clients and bots.

use crate::{
    clock::{DAY, Millis},
    credentials::{JwtKeys, TokenKind},
    db::DbConnection,
    domain::session::{JwtSpec, issue_jwt},
    error::{ApiError, Code},
    models::token::{self, Token},
    notify::{Outbox, token_signal},
    stored::{AccountId, TokenId},
    views::{CreateTokenRequest, Timestamp, TokenView},
};

/// How long a token's name may be, in characters.
const NAME_LENGTH: std::ops::RangeInclusive<usize> = 1..=100;
/// How many days a token may live.
const LIFETIME_DAYS: std::ops::RangeInclusive<i64> = 1..=366;

/// The view of a stored token, with its JWT when just made.
fn view(record: Token, jwt: Option<String>) -> TokenView {
    TokenView {
        scopes: record.scopes.into_values(),
        id: record.id.into(),
        name: record.name.unwrap_or_default(),
        created_at: Timestamp(record.created_at),
        expires_at: Timestamp(record.expires_at),
        token: jwt,
    }
}

/// The most live personal tokens an account may hold.
pub const MAX_PERSONAL: usize = 50;

/// Checks the request and makes the token: its JWT is in this answer only.
pub fn create(
    conn: &mut DbConnection,
    keys: &JwtKeys,
    account_id: &AccountId,
    request: CreateTokenRequest,
    now: Millis,
) -> Result<TokenView, ApiError> {
    let CreateTokenRequest {
        name,
        mut scopes,
        expires_in_days,
    } = request;
    if !NAME_LENGTH.contains(&name.chars().count()) {
        return Err(ApiError::invalid(
            Code::InvalidTokenName,
            "a token name has 1 to 100 characters",
        ));
    }
    if scopes.is_empty() {
        return Err(ApiError::invalid(
            Code::InvalidScopes,
            "a token needs at least one scope",
        ));
    }
    scopes.dedup();
    if token::list_personal(conn, account_id, now)?.len() >= MAX_PERSONAL {
        return Err(ApiError::invalid(
            Code::TooManyTokens,
            format!("an account has at most {MAX_PERSONAL} live personal tokens: revoke one first"),
        ));
    }
    if !LIFETIME_DAYS.contains(&expires_in_days) {
        return Err(ApiError::invalid(
            Code::InvalidLifetime,
            "expires_in_days is 1 to 366",
        ));
    }
    let spec = JwtSpec {
        kind: TokenKind::Personal,
        name: Some(name),
        scopes: &scopes,
        lifetime: expires_in_days * DAY,
        family: None,
    };
    let (record, jwt) = issue_jwt(conn, keys, account_id, spec, now)?;
    Ok(view(record, Some(jwt)))
}

/// The account's live personal tokens, without their JWTs.
pub fn list(
    conn: &mut DbConnection,
    account_id: &AccountId,
    now: Millis,
) -> Result<Vec<TokenView>, ApiError> {
    let records = token::list_personal(conn, account_id, now)?;
    Ok(records.into_iter().map(|r| view(r, None)).collect())
}

/// Revokes one of the account's tokens; false when it has no such live
/// token. Streams held with it end at once rather than at their next
/// keep-alive.
pub fn revoke(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    account_id: &AccountId,
    id: &TokenId,
    now: Millis,
) -> Result<bool, ApiError> {
    let revoked = token::revoke(conn, account_id, id, now)?;
    outbox.push(token_signal(account_id));
    Ok(revoked)
}
