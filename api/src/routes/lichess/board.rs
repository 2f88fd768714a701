//! A game's stream, and moves and actions in it, for both of lichess's
//! surfaces: the Board API (`/api/board/game/...`, routes here) and the Bot
//! API (`/api/bot/game/...`, in `bot.rs`), which differ in the scope they
//! ask and the kind of account they serve.

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
        bots::{self, Surface},
        game::{self, Action, Play},
        lichess, messages,
    },
    error::{ApiError, Code},
    models::game::GameRow,
    notify::{Watch, game_signal},
    state::AppState,
    stored::{AccountId, GameId},
    streams::Follower,
    views::{
        GameStatus, GameView,
        lichess::{ChatLine, GameState, MoveQuery},
    },
};

/// The scopes a surface asks: to read a game, and to act in it.
fn scopes(surface: Surface) -> (Scope, Scope) {
    match surface {
        Surface::Board => (Scope::GameRead, Scope::GamePlay),
        Surface::Bot => (Scope::BotPlay, Scope::BotPlay),
    }
}

/// The game, refused if lichess clients cannot play it or the caller's
/// kind of account does not use `surface`: read before anything is done.
fn playable_game(
    conn: &mut DbConnection,
    id: &GameId,
    account: &AccountId,
    surface: Surface,
) -> Result<GameRow, ApiError> {
    bots::check_surface(conn, account, surface)?;
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
    reader: AccountId,
    watch: Watch,
    follower: Follower,
    last: GameState,
    /// The last message sent as a `chatLine` (or there when it opened);
    /// none when the reader is not a player, who reads no messages.
    last_message: Option<i64>,
    /// Lines read and not yet sent.
    pending: std::collections::VecDeque<Bytes>,
    finished: bool,
}

impl GameStream {
    /// The next line: a new `gameState`, or a keep-alive; `None` once the
    /// game is over or the token no longer valid.
    async fn next_line(&mut self) -> Option<Result<Bytes, actix_web::Error>> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Some(Ok(line));
            }
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
            match self.new_messages().await {
                Ok(lines) => self.pending.extend(lines),
                Err(error) => return Some(Err(LichessError::from(error).into())),
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
                self.pending.push_back(line(&self.last));
            }
        }
    }

    /// The game's messages since the last sent, as `chatLine`s.
    async fn new_messages(&mut self) -> Result<Vec<Bytes>, ApiError> {
        let Some(after) = self.last_message else {
            return Ok(Vec::new());
        };
        let (reader, id) = (self.reader.clone(), self.id.clone());
        let list = self
            .state
            .read_own(move |conn| messages::list(conn, &reader, &id, after, messages::MAX_PAGE))
            .await?;
        if let Some(last) = list.messages.last() {
            self.last_message = Some(last.id);
        }
        Ok(list
            .messages
            .into_iter()
            .map(|m| {
                line(&ChatLine {
                    kind: "chatLine",
                    room: "player",
                    username: m.from,
                    text: m.text,
                })
            })
            .collect())
    }
}

/// The game's stream, as NDJSON: `gameFull` first, then a `gameState` on
/// each move, draw offer and at the end, when the stream closes, and a
/// `chatLine` for each message the players write; an empty line every 7
/// seconds while nothing happens.
#[get("/api/board/game/stream/{id}")]
pub async fn stream_game(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
    req: HttpRequest,
) -> Answer {
    stream(Surface::Board, state, auth, id.into_inner(), req).await
}

/// A game's stream on `surface`.
pub(super) async fn stream(
    surface: Surface,
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: GameId,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, &[scopes(surface).0])?;
    // Watching before reading, so that no change falls between the two.
    let watch = state.hub.watch(&game_signal(&id));
    let now = state.clock.now();
    let reader = auth.account_id.clone();
    state
        .read_own(move |conn| bots::check_surface(conn, &reader, surface))
        .await?;
    let view: GameView = state.game_view(id.clone(), now).await?;
    if view.state.status == GameStatus::Imported {
        return Err(ApiError::NotFound(format!("played game {id}")).into());
    }
    let (reader, game) = (auth.account_id.clone(), id.clone());
    let (full, last_message) = state
        .read_own(move |conn| {
            let full = lichess::game_full(conn, &view, now)?;
            // A player's own game: its messages follow; another's has none.
            let last = match messages::last_id(conn, &reader, &game) {
                Err(ApiError::NotAPlayer) => None,
                other => Some(other?),
            };
            Ok((full, last))
        })
        .await?;
    let keepalive = Duration::from_secs(KEEPALIVE_SECONDS);
    let follower = Follower::start(&state, &auth, &req, None, keepalive).await?;
    let first = line(&full);
    let stream = GameStream {
        state: state.clone(),
        id,
        reader: auth.account_id.clone(),
        watch,
        follower,
        finished: full.state.status != "started",
        last: full.state,
        last_message,
        pending: Default::default(),
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
pub(super) async fn act(
    surface: Surface,
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: GameId,
    action: Action,
) -> Answer {
    let account = caller(auth, &[scopes(surface).1])?.account_id;
    let now = state.clock.now();
    state
        .write(move |conn, outbox| {
            playable_game(conn, &id, &account, surface)?;
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
    play(Surface::Board, state, auth, path.into_inner(), query).await
}

/// A move on `surface`.
pub(super) async fn play(
    surface: Surface,
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    (id, text): (GameId, String),
    query: Result<web::Query<MoveQuery>, actix_web::Error>,
) -> Answer {
    let auth = caller(auth, &[scopes(surface).1])?;
    // Refused in lichess's words, not by the shared extractor's handler.
    let query = query.map_err(|e| ApiError::invalid(Code::InvalidQuery, e.to_string()))?;
    let offer_draw = query.offering_draw.unwrap_or(false);
    let now = state.clock.now();
    state
        .write(move |conn, outbox| {
            // lichess's move names no ply: it is for the game as it stands
            // when it reaches the server, on the caller's turn, which only
            // the caller can change.
            let ply = playable_game(conn, &id, &auth.account_id, surface)?.ply;
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
    act(Surface::Board, state, auth, id.into_inner(), Action::Resign).await
}

/// Abort the game before each side has moved.
#[post("/api/board/game/{id}/abort")]
pub async fn abort(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    act(Surface::Board, state, auth, id.into_inner(), Action::Abort).await
}

/// `yes` offers a draw, or accepts the opponent's offer; `no` declines it.
#[post("/api/board/game/{id}/draw/{accept}")]
pub async fn draw(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    path: web::Path<(GameId, String)>,
) -> Answer {
    let (id, accept) = path.into_inner();
    answer_draw(Surface::Board, state, auth, id, &accept).await
}

/// A draw offered or accepted (`yes`), or declined (`no`), on `surface`.
pub(super) async fn answer_draw(
    surface: Surface,
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: GameId,
    accept: &str,
) -> Answer {
    let action = match accept {
        "yes" | "true" => Action::OfferDraw,
        "no" | "false" => Action::DeclineDraw,
        _ => {
            return Err(ApiError::invalid(Code::InvalidQuery, "answer `yes` or `no`").into());
        }
    };
    act(surface, state, auth, id, action).await
}

/// Claim a draw by threefold repetition or the 50-move rule.
#[post("/api/board/game/{id}/claim-draw")]
pub async fn claim_draw(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<GameId>,
) -> Answer {
    act(
        Surface::Board,
        state,
        auth,
        id.into_inner(),
        Action::ClaimDraw,
    )
    .await
}

/// Takebacks: kingpost has none, a correspondence move once sent stands.
#[post("/api/board/game/{id}/takeback/{accept}")]
pub async fn takeback(auth: Result<Auth, ApiError>) -> Answer {
    no_takebacks(Surface::Board, auth)
}

/// The refusal of every takeback, on `surface`.
pub(super) fn no_takebacks(surface: Surface, auth: Result<Auth, ApiError>) -> Answer {
    caller(auth, &[scopes(surface).1])?;
    Err(ApiError::Refused {
        code: Code::Forbidden,
        detail: "kingpost has no takebacks: a correspondence move once sent stands".to_owned(),
    }
    .into())
}
