//! `/api/v1/tokens`: personal access tokens for clients and bots.

use actix_web::{HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{
    auth::Auth,
    clock::{DAY, rfc3339},
    credentials::{Scope, TokenKind},
    domain::session::{JwtSpec, issue_jwt},
    error::{ApiError, Problem},
    models::token::{self, Token},
    notify::token_signal,
    state::AppState,
};

/// A personal access token to create.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTokenRequest {
    /// A name to recognise the token by, 1 to 100 characters.
    pub name: String,
    /// What the token may do.
    pub scopes: Vec<Scope>,
    /// Days until it expires: 1 to 366, 90 when left out.
    #[serde(default = "default_days")]
    pub expires_in_days: i64,
}

fn default_days() -> i64 {
    90
}

/// A personal access token; `token` only in the answer that creates it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub created_at: String,
    pub expires_at: String,
    /// The JWT itself: shown once, at creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl TokenView {
    /// The view of a stored token: a scope nobody knows is an error that
    /// names the token, not a scope dropped without a word.
    fn new(record: Token, token: Option<String>) -> Result<TokenView, ApiError> {
        let scopes = record
            .scopes
            .split_whitespace()
            .map(|text| {
                Scope::parse(text).ok_or_else(|| {
                    ApiError::Internal(format!("token {}: `{text}` is not a scope", record.id))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(TokenView {
            scopes,
            id: record.id,
            name: record.name.unwrap_or_default(),
            created_at: rfc3339(record.created_at),
            expires_at: rfc3339(record.expires_at),
            token,
        })
    }
}

/// The caller's personal tokens.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenList {
    pub tokens: Vec<TokenView>,
}

/// Create a personal access token (signed-in sessions only).
#[utoipa::path(
    tag = "tokens",
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "The token, with its JWT", body = TokenView),
        (status = 422, description = "Invalid name, scopes or lifetime", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["session"]))
)]
#[post("/tokens")]
pub async fn create_personal_token(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<CreateTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let CreateTokenRequest {
        name,
        mut scopes,
        expires_in_days,
    } = body.into_inner();
    if !(1..=100).contains(&name.chars().count()) {
        return Err(ApiError::invalid(
            "invalid_token_name",
            "a token name has 1 to 100 characters",
        ));
    }
    if scopes.is_empty() {
        return Err(ApiError::invalid(
            "invalid_scopes",
            "a token needs at least one scope",
        ));
    }
    scopes.dedup();
    if !(1..=366).contains(&expires_in_days) {
        return Err(ApiError::invalid(
            "invalid_lifetime",
            "expires_in_days is 1 to 366",
        ));
    }
    let now = state.clock.now();
    let app = state.clone();
    let view = state
        .db(move |conn| {
            let spec = JwtSpec {
                kind: TokenKind::Personal,
                name: Some(name),
                scopes: &scopes,
                lifetime: expires_in_days * DAY,
                family: None,
            };
            let (record, jwt) = issue_jwt(conn, &app.keys, &auth.account_id, spec, now)?;
            TokenView::new(record, Some(jwt))
        })
        .await?;
    Ok(HttpResponse::Created().json(view))
}

/// List the caller's live personal tokens (signed-in sessions only).
#[utoipa::path(
    tag = "tokens",
    responses(
        (status = 200, description = "The tokens, without their JWTs", body = TokenList),
    ),
    security(("bearer" = ["session"]))
)]
#[get("/tokens")]
pub async fn list_personal_tokens(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<TokenList>, ApiError> {
    auth.require_session()?;
    let now = state.clock.now();
    let records = state
        .db(move |conn| Ok(token::list_personal(conn, &auth.account_id, now)?))
        .await?;
    let tokens = records
        .into_iter()
        .map(|r| TokenView::new(r, None))
        .collect::<Result<_, _>>()?;
    Ok(web::Json(TokenList { tokens }))
}

/// Revoke one of the caller's tokens (a personal token, or a session's):
/// any of them from a signed-in session; a personal token may revoke only
/// itself.
#[utoipa::path(
    tag = "tokens",
    params(("id" = String, Path, description = "The token's id (its JWT's `jti`)")),
    responses(
        (status = 204, description = "Revoked"),
        (status = 403, description = "A personal token revoking another token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such live token of the caller", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["session"]))
)]
#[delete("/tokens/{id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let id = id.into_inner();
    if id != auth.token_id {
        auth.require_session()?;
    }
    let revoked = state
        .write(move |conn, outbox| {
            let revoked = token::revoke(conn, &auth.account_id, &id, now)?;
            // Streams held with the token end at once rather than at their next keep-alive.
            outbox.push(conn, token_signal(&auth.account_id))?;
            Ok(revoked)
        })
        .await?;
    if revoked {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound("token".to_owned()))
    }
}
