//! `/api/v1/tokens`: personal access tokens for clients and bots.

use actix_web::{HttpResponse, delete, get, post, web};

use crate::{
    auth::Auth,
    domain::tokens,
    error::{ApiError, Problem},
    state::AppState,
    stored::TokenId,
    views::{CreateTokenRequest, TokenList, TokenView},
};

/// Create a personal access token (signed-in sessions only).
#[utoipa::path(
    tag = "tokens",
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "The token, with its JWT", body = TokenView),
        (status = 422, description = "Invalid name, scopes or lifetime; as many live tokens as an account may hold (`too_many_tokens`)", body = Problem, content_type = "application/problem+json"),
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
    let now = state.clock.now();
    let keys = state.keys.clone();
    let request = body.into_inner();
    let view = state
        .write(move |conn, _| tokens::create(conn, &keys, &auth.account_id, request, now))
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
    let tokens = state
        .read_own(move |conn| tokens::list(conn, &auth.account_id, now))
        .await?;
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
    id: web::Path<TokenId>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let id = id.into_inner();
    if id != auth.token_id {
        auth.require_session()?;
    }
    let revoked = state
        .write(move |conn, outbox| tokens::revoke(conn, outbox, &auth.account_id, &id, now))
        .await?;
    if revoked {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound("token".to_owned()))
    }
}
