//! `/api/board/game/...`: a game's stream, and moves and actions in it.

use std::time::Duration;

use actix_web::{
    HttpRequest, HttpResponse, get,
    http::header::{CACHE_CONTROL, CONTENT_TYPE},
    post,
    web::{self, Bytes},
};
use futures_util::{StreamExt, stream};

use super::{Answer, KEEPALIVE_SECONDS, LichessError, caller, done, push_line};
use crate::{
    auth::Auth,
    credentials::Scope,
    db::DbConnection,
    domain::{
        game::{self, Action, Play},
        lichess,
    },
    error::{ApiError, Code},
    models::game::GameRow,
    notify::{Watch, game_signal},
    state::AppState,
    stored::{AccountId, GameId},
    streams::Follower,
    views::{GameStatus, GameView, lichess::GameState, lichess::MoveQuery},
};

/// The game, refused if lichess clients cannot play it: read before
/// anything is done in it.
fn playable_game(conn: &mut DbConnection, id: &GameId) -> Result<GameRow, ApiError> {
    let row = game::find_game(conn, id)?;
    let start = game::start_of(&row);
    match lichess::variant(row.rules.0, &start) {
        Some(_) => Ok(row),
        None => Err(lichess::not_playable_here(
            row.rules.0,
            game::variant_name(row.rules.0, &start),
        )),
    }
}

/// A line of NDJSON.
fn line(value: &impl serde::Serialize) -> Bytes {
    let mut text = String::new();
    push_line(&mut text, value);
    Bytes::from(text)
}

/// One open game stream: the game's changes watched, the account followed
/// for its token's revocation, the last state sent.
struct GameStream {
    state: web::Data<AppState>,
    id: GameId,
    watch: Watch,
    follower: Follower,
    last: GameState,
    finished: bool,
}

impl GameStream {
    /// The next line: a new `gameState`, or a keep-alive; `None` once the
    /// game is over or the token no longer valid.
    async fn next_line(&mut self) -> Option<Result<Bytes, actix_web::Error>> {
        loop {
            if self.finished {
                return None;
            }
            let keepalive = Duration::from_secs(KEEPALIVE_SECONDS);
            let changed = self.watch.changed(keepalive).await;
            if !Box::pin(self.follower.still_authorised()).await {
                return None;
            }
            if !changed {
                return Some(Ok(Bytes::from_static(b"\n")));
            }
            let now = self.state.clock.now();
            let view = match Box::pin(self.state.game_view(self.id.clone(), now)).await {
                Ok(view) => view,
                Err(error) => return Some(Err(LichessError::from(error).into())),
            };
            self.finished = view.state.status != GameStatus::Started;
            let fresh = lichess::game_state(&view);
            // The clock's milliseconds alone change on every read: a new
            // line is for a move, an offer or the end.
            let same = GameState {
                wtime: self.last.wtime,
                btime: self.last.btime,
                ..fresh.clone()
            } == self.last;
            if !same {
                self.last = fresh;
                return Some(Ok(line(&self.last)));
            }
        }
    }
}

/// The game's stream, as NDJSON: `gameFull` first, then a `gameState` on
/// each move, draw offer and at the end, when the stream closes; an empty
/// line every 7 seconds while nothing happens.
#[get("/api/board/game/stream/{id}")]
pub async fn stream_game(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, Some(Scope::GameRead))?;
    let id = id.into_inner();
    // Watching before reading, so that no change falls between the two.
    let watch = state.hub.watch(&game_signal(&id));
    let now = state.clock.now();
    let view: GameView = state.game_view(id.clone(), now).await?;
    if view.state.status == GameStatus::Imported {
        return Err(ApiError::NotFound(format!("played game {id}")).into());
    }
    let full = state
        .db(move |conn| lichess::game_full(conn, &view, now))
        .await?;
    let keepalive = Duration::from_secs(KEEPALIVE_SECONDS);
    let follower = Follower::start(&state, &auth, &req, None, keepalive).await?;
    let first = line(&full);
    let stream = GameStream {
        state: state.clone(),
        id,
        watch,
        follower,
        finished: full.state.status != "started",
        last: full.state,
    };
    let body = stream::once(async move { Ok::<_, actix_web::Error>(first) }).chain(stream::unfold(
        stream,
        |mut stream| async move {
            let line = stream.next_line().await?;
            Some((line, stream))
        },
    ));
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "application/x-ndjson"))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .streaming(body))
}

/// Carries out `action` for the caller in a game lichess clients can play.
async fn act(state: web::Data<AppState>, account: AccountId, id: GameId, action: Action) -> Answer {
    let now = state.clock.now();
    state
        .write(move |conn, outbox| {
            playable_game(conn, &id)?;
            game::act(conn, outbox, now, &id, &account, action).map(drop)
        })
        .await?;
    Ok(done())
}

/// Play a move, in UCI (`e2e4`, `e1g1` or `e1h1` for castling); with
/// `offeringDraw=true` a draw offer goes with it.
#[post("/api/board/game/{id}/move/{move}")]
pub async fn make_move(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    path: web::Path<(GameId, String)>,
    query: Result<web::Query<MoveQuery>, actix_web::Error>,
) -> Answer {
    let auth = caller(auth, Some(Scope::GamePlay))?;
    let (id, text) = path.into_inner();
    // Refused in lichess's words, not by the shared extractor's handler.
    let query = query.map_err(|e| ApiError::invalid(Code::InvalidQuery, e.to_string()))?;
    let offer_draw = query.offering_draw.unwrap_or(false);
    let now = state.clock.now();
    state
        .write(move |conn, outbox| {
            // lichess's move names no ply: it is for the game as it stands
            // when it reaches the server, on the caller's turn, which only
            // the caller can change.
            let ply = playable_game(conn, &id)?.ply;
            let play = Play {
                text,
                ply,
                offer_draw,
                message: None,
            };
            game::play_move(conn, outbox, now, &id, auth.player(), &play).map(drop)
        })
        .await?;
    Ok(done())
}

#[post("/api/board/game/{id}/resign")]
pub async fn resign(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    let auth = caller(auth, Some(Scope::GamePlay))?;
    act(state, auth.account_id, id.into_inner(), Action::Resign).await
}

/// Abort the game before each side has moved.
#[post("/api/board/game/{id}/abort")]
pub async fn abort(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    let auth = caller(auth, Some(Scope::GamePlay))?;
    act(state, auth.account_id, id.into_inner(), Action::Abort).await
}

/// `yes` offers a draw, or accepts the opponent's offer; `no` declines it.
#[post("/api/board/game/{id}/draw/{accept}")]
pub async fn draw(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    path: web::Path<(GameId, String)>,
) -> Answer {
    let auth = caller(auth, Some(Scope::GamePlay))?;
    let (id, accept) = path.into_inner();
    let action = match accept.as_str() {
        "yes" | "true" => Action::OfferDraw,
        "no" | "false" => Action::DeclineDraw,
        _ => {
            return Err(ApiError::invalid(Code::InvalidQuery, "answer `yes` or `no`").into());
        }
    };
    act(state, auth.account_id, id, action).await
}

/// Claim a draw by threefold repetition or the 50-move rule.
#[post("/api/board/game/{id}/claim-draw")]
pub async fn claim_draw(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    let auth = caller(auth, Some(Scope::GamePlay))?;
    act(state, auth.account_id, id.into_inner(), Action::ClaimDraw).await
}

/// Takebacks: kingpost has none, a correspondence move once sent stands.
#[post("/api/board/game/{id}/takeback/{accept}")]
pub async fn takeback(auth: Result<Auth, ApiError>) -> Answer {
    caller(auth, Some(Scope::GamePlay))?;
    Err(ApiError::Refused {
        code: Code::Forbidden,
        detail: "kingpost has no takebacks: a correspondence move once sent stands".to_owned(),
    }
    .into())
}
