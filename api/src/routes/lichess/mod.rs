//! The lichess-compatible surface: the part of lichess's Board API that
//! correspondence play needs, at lichess's own paths (`/api/account`,
//! `/api/stream/event`, `/api/board/...`, `/api/challenge/...`), so that a
//! client written for lichess plays on kingpost once its base URL is
//! changed. lichess's clients join these absolute paths to their base URL
//! (berserk with `urljoin`), which would drop any prefix; they never meet
//! kingpost's own API, whose paths all begin with a version (`/api/v1`).
//!
//! Tokens are kingpost's (personal or session), with kingpost's scopes:
//! `game:read` to follow, `game:play` to act in a game, `challenge:write`
//! for challenges, `bot:play` for the Bot API (`/api/bot/...`), which BOT
//! accounts use instead of the Board API. Errors are lichess's
//! `{"error": "..."}`.

mod account;
mod board;
mod bot;
mod challenges;
mod events;

use actix_web::{
    HttpRequest, HttpResponse, ResponseError,
    http::{StatusCode, header},
    web,
};

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::lichess,
    error::ApiError,
    state::AppState,
    stored::GameId,
    views::lichess::{Done, Failure, GameInfo},
};

/// Seconds between two keep-alive lines of an idle stream, as lichess's.
const KEEPALIVE_SECONDS: u64 = 7;

/// Every route of the surface.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(account::get_account)
        .service(account::test_tokens)
        .service(account::playing)
        .service(account::user)
        .service(account::export_game)
        .service(account::users_status)
        .service(account::bots_online)
        .service(events::stream_events)
        .service(board::stream_game)
        .service(board::make_move)
        .service(board::resign)
        .service(board::abort)
        .service(board::draw)
        .service(board::claim_draw)
        .service(board::takeback)
        .service(bot::upgrade)
        .service(bot::stream_game)
        .service(bot::make_move)
        .service(bot::resign)
        .service(bot::abort)
        .service(bot::draw)
        .service(bot::claim_draw)
        .service(bot::takeback)
        .service(bot::chat)
        .service(bot::read_chat)
        .service(challenges::list)
        .service(challenges::create)
        .service(challenges::show)
        .service(challenges::accept)
        .service(challenges::decline)
        .service(challenges::cancel);
}

/// An error as lichess writes it: its status (lichess answers 400 where
/// kingpost distinguishes a refusal's 403, 409 and 422; a token without
/// the scope is a 403 on both) and `{"error": "..."}`.
#[derive(Debug)]
pub struct LichessError(ApiError);

impl From<ApiError> for LichessError {
    fn from(error: ApiError) -> LichessError {
        LichessError(error)
    }
}

impl std::fmt::Display for LichessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ResponseError for LichessError {
    fn status_code(&self) -> StatusCode {
        if let ApiError::InsufficientScope(_) = self.0 {
            return StatusCode::FORBIDDEN;
        }
        match self.0.status_code() {
            StatusCode::FORBIDDEN | StatusCode::CONFLICT | StatusCode::UNPROCESSABLE_ENTITY => {
                StatusCode::BAD_REQUEST
            }
            other => other,
        }
    }

    fn error_response(&self) -> HttpResponse {
        // kingpost's own answer decides the headers (`Retry-After`,
        // `WWW-Authenticate`) and logs what needs logging.
        let ours = self.0.error_response();
        let mut answer = HttpResponse::build(self.status_code());
        for name in [header::RETRY_AFTER, header::WWW_AUTHENTICATE] {
            if let Some(value) = ours.headers().get(&name) {
                answer.insert_header((name, value.clone()));
            }
        }
        answer.json(Failure {
            error: self.0.to_string(),
        })
    }
}

type Answer = Result<HttpResponse, LichessError>;

/// The caller, with one of `scopes` (any token when there are none), or
/// lichess's error naming the first.
fn caller(auth: Result<Auth, ApiError>, scopes: &[Scope]) -> Result<Auth, LichessError> {
    let auth = auth?;
    match scopes.first() {
        Some(&first) if !scopes.iter().any(|scope| auth.scopes.contains(scope)) => {
            Err(ApiError::InsufficientScope(first.key()).into())
        }
        _ => Ok(auth),
    }
}

/// Reading one's events and challenges: a Board client's `game:read`, or
/// a BOT's `bot:play` (as lichess's `bot:play` reads them).
const READING: &[Scope] = &[Scope::GameRead, Scope::BotPlay];
/// Making and answering challenges: `challenge:write`, or a BOT's
/// `bot:play` (as on lichess).
const CHALLENGING: &[Scope] = &[Scope::ChallengeWrite, Scope::BotPlay];

/// Appends `value` to `out` as a line of NDJSON.
fn push_line(out: &mut String, value: &impl serde::Serialize) {
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
    out.push('\n');
}

/// `GameEventInfo` of game `id` for `me`, one of its players, unless
/// lichess clients cannot play it.
async fn game_info(
    state: &web::Data<AppState>,
    id: GameId,
    me: String,
) -> Result<Option<GameInfo>, ApiError> {
    let now = state.clock.now();
    let view = state.game_view(id, now).await?;
    state
        .read_own(move |conn| lichess::game_info(conn, &view, &me, now))
        .await
}

/// `{"ok": true}`.
fn done() -> HttpResponse {
    HttpResponse::Ok().json(Done { ok: true })
}

/// The address clients reached this service at, for the links lichess's
/// answers carry.
fn base_url(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}
