//! Sign-in sessions: a short-lived access JWT and a rotating refresh token.

use crate::{
    clock::{DAY, MINUTE, Millis, SECOND},
    credentials::{
        AUDIENCE, Claims, ISSUER, JwtKeys, Scope, TokenKind, digest, new_id, new_secret,
    },
    db::{DbConnection, write_transaction},
    error::ApiError,
    models::token::{self, RefreshToken, Token},
    notify::{Outbox, token_signal},
    stored::{AccountId, KeyList, TokenId},
    views::TokenResponse,
};

/// How long a session's access token lives.
pub const ACCESS_LIFETIME: Millis = 15 * MINUTE;
/// How long a refresh token can wait to be used.
pub const REFRESH_LIFETIME: Millis = 30 * DAY;

/// What a JWT to issue is.
#[derive(Debug)]
pub struct JwtSpec<'a> {
    pub kind: TokenKind,
    pub name: Option<String>,
    pub scopes: &'a [Scope],
    pub lifetime: Millis,
    /// The sign-in a session's token belongs to; none for personal tokens.
    pub family: Option<String>,
}

impl std::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Records and signs a JWT for `account_id`.
pub fn issue_jwt(
    conn: &mut DbConnection,
    keys: &JwtKeys,
    account_id: &AccountId,
    spec: JwtSpec<'_>,
    now: Millis,
) -> Result<(Token, String), ApiError> {
    let JwtSpec {
        kind,
        name,
        scopes,
        lifetime,
        family,
    } = spec;
    let record = Token {
        id: new_id().into(),
        account_id: account_id.to_owned(),
        kind,
        name,
        scopes: KeyList::new(scopes.to_vec()),
        created_at: now,
        expires_at: now + lifetime,
        revoked_at: None,
        family,
    };
    token::insert(conn, &record)?;
    let jwt = keys.sign(&Claims {
        sub: account_id.to_string(),
        iss: ISSUER.to_owned(),
        aud: AUDIENCE.to_owned(),
        iat: now / SECOND,
        exp: record.expires_at / SECOND,
        jti: record.id.clone(),
        scopes: scopes.to_vec(),
        kind,
    })?;
    Ok((record, jwt))
}

/// Whether the token `id` is still live: not revoked, not expired.
pub fn is_live(conn: &mut DbConnection, id: &TokenId, now: Millis) -> Result<bool, ApiError> {
    Ok(token::find_live(conn, id, now)?.is_some())
}

/// Opens a session (or continues the sign-in `family` on refresh).
pub fn issue(
    conn: &mut DbConnection,
    keys: &JwtKeys,
    account_id: &AccountId,
    family: Option<String>,
    now: Millis,
) -> Result<TokenResponse, ApiError> {
    let family = family.unwrap_or_else(new_id);
    write_transaction(conn, |conn| {
        let spec = JwtSpec {
            kind: TokenKind::Session,
            name: None,
            scopes: Scope::ALL,
            lifetime: ACCESS_LIFETIME,
            family: Some(family.clone()),
        };
        let (record, access_token) = issue_jwt(conn, keys, account_id, spec, now)?;
        let refresh_token = new_secret();
        token::insert_refresh(
            conn,
            &RefreshToken {
                id: digest(&refresh_token),
                account_id: account_id.to_owned(),
                family,
                created_at: now,
                expires_at: now + REFRESH_LIFETIME,
                used_at: None,
                revoked_at: None,
            },
        )?;
        Ok(TokenResponse {
            access_token,
            token_type: "Bearer".to_owned(),
            expires_in: ACCESS_LIFETIME / SECOND,
            refresh_token,
            scope: record.scopes.text().to_owned(),
        })
    })
}

/// Trades a refresh token for a new session. A token used twice revokes
/// its whole sign-in, access tokens included: one of the two users of it
/// is not its owner. The streams held with those tokens are told, and end.
pub fn refresh(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    keys: &JwtKeys,
    refresh_token: &str,
    now: Millis,
) -> Result<TokenResponse, ApiError> {
    let key = digest(refresh_token);
    let record = token::find_refresh(conn, &key)?
        .filter(|r| r.revoked_at.is_none() && r.expires_at > now)
        .ok_or_else(|| {
            ApiError::Unauthorized("unknown, expired or revoked refresh token".to_owned())
        })?;
    if !token::use_refresh(conn, &key, now)? {
        token::revoke_family(conn, &record.family, now)?;
        outbox.push(token_signal(&record.account_id));
        return Err(ApiError::RefreshTokenReused);
    }
    issue(conn, keys, &record.account_id, Some(record.family), now)
}
