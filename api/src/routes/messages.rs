//! `/api/v1/games/{id}/messages`: what a game's two players say to each
//! other; `/api/v1/account/mutes`: whom the caller no longer hears.

use actix_web::{HttpResponse, delete, get, http::header, post, put, web};

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::messages,
    error::{ApiError, Problem},
    routes::{Query, page_limit},
    state::AppState,
    stored::GameId,
    views::{MessageList, MessageQuery, MessageView, MuteList, SayRequest},
};

/// A game's messages, oldest first, for its two players alone: what was
/// said with moves and alone. A muted opponent's are left out. New ones
/// arrive as `message_received` events.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game"), MessageQuery),
    responses(
        (status = 200, description = "The messages", body = MessageList),
        (status = 403, description = "Not a player of the game (`not_a_player`), or the token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad `after` or `limit`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/games/{id}/messages")]
pub async fn list_messages(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
    query: Query<MessageQuery>,
) -> Result<web::Json<MessageList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let limit = page_limit(query.limit, messages::PAGE, messages::MAX_PAGE)?;
    let after = query.after.unwrap_or(0);
    let id = id.into_inner();
    let list = state
        .read_own(move |conn| messages::list(conn, &auth.account_id, &id, after, limit))
        .await?;
    Ok(web::Json(list))
}

/// Say something to the opponent, during the game or after it (a move can
/// carry a message too: `message` in its body). Plain text, at most 500
/// characters and 30 messages an hour; never in the game's PGN.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    request_body = SayRequest,
    responses(
        (status = 201, description = "The message, as the opponent reads it", body = MessageView),
        (status = 403, description = "Not a player of the game (`not_a_player`), or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Empty, too long, or holding control characters (`invalid_message`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Past 30 messages in the last hour (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/messages")]
pub async fn create_message(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
    body: web::Json<SayRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let text = body.into_inner().text;
    let location = format!("/api/v1/games/{id}/messages");
    let said = state
        .write(move |conn, outbox| messages::say(conn, outbox, now, &id, &auth.account_id, &text))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, location))
        .json(said))
}

/// The accounts the caller has muted.
#[utoipa::path(
    tag = "accounts",
    responses((status = 200, description = "The muted accounts", body = MuteList)),
    security(("bearer" = []))
)]
#[get("/account/mutes")]
pub async fn list_mutes(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<MuteList>, ApiError> {
    let list = state
        .read_own(move |conn| messages::muted(conn, &auth.account_id))
        .await?;
    Ok(web::Json(list))
}

/// Mute an account: its messages and challenges no longer reach the
/// caller (its challenges are refused; it is not told why).
#[utoipa::path(
    tag = "accounts",
    params(("username" = String, Path, description = "The account to mute")),
    responses(
        (status = 204, description = "Muted (again: nothing changes)"),
        (status = 404, description = "No such account", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The caller itself (`invalid_username`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[put("/account/mutes/{username}")]
pub async fn add_mute(
    state: web::Data<AppState>,
    auth: Auth,
    username: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    let now = state.clock.now();
    state
        .write(move |conn, _| messages::mute(conn, &auth.account_id, &username, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Unmute an account.
#[utoipa::path(
    tag = "accounts",
    params(("username" = String, Path, description = "The account to hear again")),
    responses((status = 204, description = "Not muted (whether it was or not)")),
    security(("bearer" = ["game:play"]))
)]
#[delete("/account/mutes/{username}")]
pub async fn delete_mute(
    state: web::Data<AppState>,
    auth: Auth,
    username: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    state
        .write(move |conn, _| messages::unmute(conn, &auth.account_id, &username))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
