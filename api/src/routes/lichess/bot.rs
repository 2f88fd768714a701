//! `/api/bot/...`: lichess's Bot API, for BOT accounts: the upgrade, and a
//! game's stream, moves, actions and chat (shared with the Board API in
//! `board.rs`, but for the scope and the kind of account).

use actix_web::{Either, HttpRequest, HttpResponse, get, post, web};

use super::{Answer, board, caller, done};
use crate::{
    auth::Auth,
    credentials::Scope,
    domain::{
        bots::{self, Surface},
        game::Action,
        messages,
    },
    error::{ApiError, Code},
    state::AppState,
    stored::GameId,
    views::lichess::{ChatForm, ChatMessage, MoveQuery},
};

/// Upgrade the caller's account to a BOT, for good: only an account that
/// has never played a game.
#[post("/api/bot/account/upgrade")]
pub async fn upgrade(state: web::Data<AppState>, auth: Result<Auth, ApiError>) -> Answer {
    let auth = caller(auth, &[Scope::BotPlay])?;
    state
        .write(move |conn, _| bots::upgrade(conn, &auth.account_id))
        .await?;
    Ok(done())
}

#[get("/api/bot/game/stream/{id}")]
pub async fn stream_game(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
    req: HttpRequest,
) -> Answer {
    board::stream(Surface::Bot, state, auth, id.into_inner(), req).await
}

#[post("/api/bot/game/{id}/move/{move}")]
pub async fn make_move(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    path: web::Path<(GameId, String)>,
    query: Result<web::Query<MoveQuery>, actix_web::Error>,
) -> Answer {
    board::play(Surface::Bot, state, auth, path.into_inner(), query).await
}

#[post("/api/bot/game/{id}/resign")]
pub async fn resign(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    board::act(Surface::Bot, state, auth, id.into_inner(), Action::Resign).await
}

/// Abort: before each side has moved, and never against a player who is
/// not a BOT (in correspondence they have days for a move).
#[post("/api/bot/game/{id}/abort")]
pub async fn abort(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    board::act(Surface::Bot, state, auth, id.into_inner(), Action::Abort).await
}

#[post("/api/bot/game/{id}/draw/{accept}")]
pub async fn draw(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    path: web::Path<(GameId, String)>,
) -> Answer {
    let (id, accept) = path.into_inner();
    board::answer_draw(Surface::Bot, state, auth, id, &accept).await
}

#[post("/api/bot/game/{id}/claim-draw")]
pub async fn claim_draw(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    board::act(
        Surface::Bot,
        state,
        auth,
        id.into_inner(),
        Action::ClaimDraw,
    )
    .await
}

#[post("/api/bot/game/{id}/takeback/{accept}")]
pub async fn takeback(auth: Result<Auth, ApiError>) -> Answer {
    board::no_takebacks(Surface::Bot, auth)
}

/// Write in the game's chat: the `player` room is the players' messages
/// (kingpost's own, `/api/v1/games/{id}/messages`); kingpost has no
/// spectators' chat, and a line to the `spectator` room is accepted and
/// not kept.
#[post("/api/bot/game/{id}/chat")]
pub async fn chat(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
    form: Result<Either<web::Form<ChatForm>, web::Json<ChatForm>>, actix_web::Error>,
) -> Answer {
    let auth = caller(auth, &[Scope::BotPlay])?;
    // A form, as lichess documents it, or JSON, as berserk sends it.
    let form = match form.map_err(|e| ApiError::invalid(Code::InvalidBody, e.to_string()))? {
        Either::Left(form) => form.into_inner(),
        Either::Right(json) => json.into_inner(),
    };
    let (id, now) = (id.into_inner(), state.clock.now());
    state
        .write(move |conn, outbox| {
            bots::check_surface(conn, &auth.account_id, Surface::Bot)?;
            match form.room.as_str() {
                "player" => {
                    messages::say(conn, outbox, now, &id, &auth.account_id, &form.text).map(drop)
                }
                "spectator" => Ok(()),
                other => Err(ApiError::invalid(
                    Code::InvalidBody,
                    format!("`{other}` is no chat room: `player` or `spectator`"),
                )),
            }
        })
        .await?;
    Ok(done())
}

/// The game's chat: the players' messages, oldest first.
#[get("/api/bot/game/{id}/chat")]
pub async fn read_chat(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    let auth = caller(auth, &[Scope::BotPlay])?;
    let id = id.into_inner();
    let list = state
        .read_own(move |conn| {
            bots::check_surface(conn, &auth.account_id, Surface::Bot)?;
            messages::list(conn, &auth.account_id, &id, 0, messages::MAX_PAGE)
        })
        .await?;
    let lines: Vec<ChatMessage> = list
        .messages
        .into_iter()
        .map(|m| ChatMessage {
            text: m.text,
            user: m.from,
        })
        .collect();
    Ok(HttpResponse::Ok().json(lines))
}
