//! `/api/v1/auth`: signing in with a password, and refreshing.

use actix_web::{HttpRequest, post, web};

use crate::{
    domain::session::{self},
    error::{ApiError, Problem},
    middleware::limits::FailedSignIns,
    models::account,
    passwords,
    state::AppState,
    views::{PasswordGrantRequest, RefreshRequest, TokenResponse},
};

/// Sign in: a short-lived access token and a refresh token.
#[utoipa::path(
    tag = "auth",
    request_body = PasswordGrantRequest,
    responses(
        (status = 200, description = "The session's tokens", body = TokenResponse),
        (status = 401, description = "Wrong username or password", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/token")]
pub async fn create_session_token(
    state: web::Data<AppState>,
    body: web::Json<PasswordGrantRequest>,
    req: HttpRequest,
) -> Result<web::Json<TokenResponse>, ApiError> {
    let PasswordGrantRequest {
        username, password, ..
    } = body.into_inner();
    let now = state.clock.now();
    let failures = FailedSignIns::check(&state, &username, &req)?;
    let found = state
        .read_own(move |conn| Ok(account::find_by_username(conn, &username)?))
        .await?;
    // Verified against a hash even for an unknown name, off the database:
    // the answer takes as long either way, and holds no connection.
    let hash = found
        .as_ref()
        .map_or(DUMMY_HASH, |a| a.password_hash.as_str())
        .to_owned();
    let verified = passwords::verify(password, hash).await?;
    let app = state.clone();
    let result = match found {
        Some(account) if verified => {
            state
                .write(move |conn, _| session::issue(conn, &app.keys, &account.id, None, now))
                .await
        }
        _ => Err(ApiError::InvalidCredentials),
    };
    if let Err(ApiError::InvalidCredentials) = result {
        failures.spend();
    }
    Ok(web::Json(result?))
}

/// The argon2id hash of a random password no one knows.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$Xz0D6n7u6ZfKJ1nQ7m6vG3m0cJz4p2b8ZkV9sS0mN1Q";

/// Trade a refresh token for new tokens. Each refresh token works once; a
/// second use revokes the sign-in.
#[utoipa::path(
    tag = "auth",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "New tokens", body = TokenResponse),
        (status = 401, description = "Unknown, expired, revoked or reused refresh token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/refresh")]
pub async fn refresh_session_token(
    state: web::Data<AppState>,
    body: web::Json<RefreshRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    let now = state.clock.now();
    let app = state.clone();
    let refresh_token = body.into_inner().refresh_token;
    let tokens = state
        .write(move |conn, outbox| {
            session::refresh(conn, outbox, &app.keys, refresh_token.expose(), now)
        })
        .await?;
    Ok(web::Json(tokens))
}
