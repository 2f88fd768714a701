//! Authentication of requests: the bearer token of the `Authorization`
//! header, verified in one place ([`verified_claims`] for the middleware,
//! the [`Auth`] extractor, which also asks the record whether the token was
//! revoked, for handlers).

use std::{future::Future, pin::Pin};

use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header, web};

use crate::{
    clock::Millis,
    credentials::{Claims, Scope, TokenKind},
    db::DbConnection,
    domain::game::Player,
    error::ApiError,
    models::token,
    state::AppState,
    stored::{AccountId, TokenId},
};

/// The authenticated caller of a request.
#[derive(Clone, Debug)]
pub struct Auth {
    pub account_id: AccountId,
    pub username: String,
    pub scopes: Vec<Scope>,
    pub kind: TokenKind,
    pub token_id: TokenId,
    /// When the token expires: held requests end by then.
    pub expires_at: Millis,
    /// The account's last activity, as the token's read found it.
    pub last_active_at: Option<Millis>,
}

impl Auth {
    /// The caller as a player of games.
    pub fn player(&self) -> Player<'_> {
        Player {
            id: &self.account_id,
            last_active_at: self.last_active_at,
        }
    }

    /// Refuses the request unless the token carries `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(ApiError::InsufficientScope(scope.key()))
        }
    }

    /// Refuses the request unless it comes from a signed-in session.
    pub fn require_session(&self) -> Result<(), ApiError> {
        if self.kind == TokenKind::Session {
            Ok(())
        } else {
            Err(ApiError::Forbidden(
                "a personal access token cannot manage the account or its tokens: sign in with a password".to_owned(),
            ))
        }
    }
}

/// The credentials of an `Authorization: Bearer <token>` header, the
/// scheme matched without regard to case (RFC 9110, 11.1).
pub fn bearer_credentials(headers: &header::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The claims of the request's bearer token if it verifies now, without
/// asking whether it was revoked: what rate limits and idempotency key by.
pub fn verified_claims(req_headers: &header::HeaderMap, state: &AppState) -> Option<Claims> {
    let token = bearer_credentials(req_headers)?;
    state.keys.verify(token, state.clock.now()).ok()
}

fn bearer_token(req: &HttpRequest) -> Result<String, ApiError> {
    if req.headers().get(header::AUTHORIZATION).is_none() {
        return Err(ApiError::Unauthorized(
            "no Authorization header: send `Bearer <token>`".to_owned(),
        ));
    }
    bearer_credentials(req.headers())
        .map(str::to_owned)
        .ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header is not `Bearer <token>`".to_owned())
        })
}

impl FromRequest for Auth {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Auth, ApiError>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        from_bearer(req, TokenRecord::Primary)
    }
}

/// The caller `req`'s bearer token stands for, its record read as `record`
/// says.
fn from_bearer(
    req: &HttpRequest,
    record: TokenRecord,
) -> Pin<Box<dyn Future<Output = Result<Auth, ApiError>>>> {
    let token = bearer_token(req);
    let state = req.app_data::<web::Data<AppState>>().cloned();
    Box::pin(async move {
        let state = state.ok_or_else(|| ApiError::Internal("no application state".to_owned()))?;
        authenticate(&state, token?, record).await
    })
}

/// Where a token's record is read: whether it was revoked is a read like
/// the request's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenRecord {
    /// On the primary: a revocation holds from the moment it is answered.
    Primary,
    /// On a replica, for the reads open to anyone: a token revoked holds
    /// there for as long as the replica may lag (`--max-replica-lag`), and
    /// a token the replica does not know yet (made a moment ago) is looked
    /// up on the primary. Heavy open reads then leave the primary alone.
    MayLag,
}

/// The caller a bearer `token` stands for, if it verifies now and was not
/// revoked (as `record` reads it).
pub async fn authenticate(
    state: &web::Data<AppState>,
    token: String,
    record: TokenRecord,
) -> Result<Auth, ApiError> {
    let now = state.clock.now();
    let claims = state.keys.verify(&token, now)?;
    let jti = claims.jti.clone();
    let find = move |conn: &mut DbConnection| Ok(token::find_live(conn, &jti, now)?);
    let record = match record {
        TokenRecord::Primary => None,
        TokenRecord::MayLag => state.read_lagging(find.clone()).await?,
    };
    let record = match record {
        Some(record) => Some(record),
        None => state.read_own(find).await?,
    };
    let token::LiveToken {
        token: record,
        username,
        last_active_at,
    } = record.ok_or_else(|| ApiError::Unauthorized("the token was revoked".to_owned()))?;
    if *record.account_id != *claims.sub {
        return Err(ApiError::Unauthorized(
            "the token does not match its record".to_owned(),
        ));
    }
    Ok(Auth {
        account_id: record.account_id,
        username,
        scopes: claims.scopes,
        kind: claims.kind,
        token_id: record.id,
        expires_at: record.expires_at,
        last_active_at,
    })
}

/// The caller of a read open to anyone, when it sends a token: a request
/// without `Authorization` is anonymous, one with a token that fails is a
/// `401` (never taken for anonymous), and a token without `game:read` is a
/// `403`, as on the other reads.
#[derive(Clone, Debug)]
pub struct MaybeAuth(pub Option<Auth>);

impl MaybeAuth {
    /// The account reading, if any.
    pub fn reader(&self) -> Option<&AccountId> {
        self.0.as_ref().map(|auth| &auth.account_id)
    }
}

impl FromRequest for MaybeAuth {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<MaybeAuth, ApiError>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        if !req.headers().contains_key(header::AUTHORIZATION) {
            return Box::pin(std::future::ready(Ok(MaybeAuth(None))));
        }
        let auth = from_bearer(req, TokenRecord::MayLag);
        Box::pin(async move {
            let auth = auth.await?;
            auth.require(Scope::GameRead)?;
            Ok(MaybeAuth(Some(auth)))
        })
    }
}
