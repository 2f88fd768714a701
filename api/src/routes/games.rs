//! `/api/v1/games`: reading games and playing moves.

use actix_web::{HttpRequest, HttpResponse, delete, get, http::header::ETAG, post, put, web};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::{
        conditionals::{self},
        cursor,
        game::{self, Action, Play, listing},
        history::{self},
        messages,
    },
    error::{ApiError, Code, Problem},
    models::game::Listing,
    notify::game_signal,
    routes::{Query, long_poll::answer_when_changed},
    state::AppState,
    stored::GameId,
    views::{
        Conditionals, GameList, GameStatus, GameView, HistoryView, MoveAnswer, MoveRequest,
        StatusFilter, StoredConditionals,
    },
};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListGamesQuery {
    /// `ongoing` (default; soonest deadline first) or `finished` (latest first).
    #[serde(default)]
    #[param(inline)]
    pub status: StatusFilter,
    /// Only ongoing games where it is the caller's move.
    #[serde(default)]
    pub my_turn: bool,
    /// Games per page, 1 to 100 (default 50).
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// The caller's games, a page at a time.
#[utoipa::path(
    tag = "games",
    params(ListGamesQuery),
    responses(
        (status = 200, description = "A page of games", body = GameList),
        (status = 422, description = "Invalid filter or cursor", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    auth: Auth,
    query: Query<ListGamesQuery>,
) -> Result<web::Json<GameList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let query = query.into_inner();
    let limit = super::page_limit(query.limit, listing::DEFAULT_PAGE, listing::MAX_PAGE)?;
    let which = match (query.status, query.my_turn) {
        (StatusFilter::Finished, true) => {
            return Err(ApiError::invalid(
                Code::InvalidQuery,
                "a finished game is nobody's turn",
            ));
        }
        (StatusFilter::Finished, false) => Listing::Finished,
        (StatusFilter::Ongoing, true) => Listing::MyTurn,
        (StatusFilter::Ongoing, false) => Listing::Ongoing,
    };
    let after = query.cursor.as_deref().map(cursor::decode).transpose()?;
    let list = state
        .read_own(move |conn| listing::list(conn, &auth.account_id, which, after, limit))
        .await?;
    Ok(web::Json(list))
}

fn with_etag(view: GameView) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((ETAG, game::etag(&view.state)))
        .json(view)
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GetGameQuery {
    /// With `If-None-Match`: hold the request up to this many seconds (at
    /// most 60) until the game changes; then `304` if it did not.
    pub wait: Option<u64>,
}

/// Every position of a game, the start first, each with the move that led
/// to it and that move's kind (a teleport, a switch, a placement...): for
/// stepping through a game. Replays the game: read it when needed, not
/// on every change.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The positions", body = HistoryView),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/games/{id}/positions")]
pub async fn get_positions(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<web::Json<HistoryView>, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    let history = state
        .read_own(move |conn| history::history(conn, Some(&auth.account_id), &id))
        .await?;
    Ok(web::Json(history))
}

/// A game: players, positions, moves, legal moves, deadline. Answers
/// `304 Not Modified` when `If-None-Match` carries its current `ETag`;
/// with `?wait=<seconds>` it first holds the request until the game
/// changes (a long poll), on any instance.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The game"),
        GetGameQuery,
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` last read: `304` if the game has not changed since (with `wait`, once it changes or the wait ends)"),
    ),
    responses(
        (status = 200, description = "The game", body = GameView, headers(("ETag" = String, description = "Changes with every ply and status"))),
        (status = 304, description = "Unchanged since the ETag sent (after the wait, if any)"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A wait over 60 seconds", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "With `wait`: the account or address holds 20 or 50 streams and long polls open already (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
    query: Query<GetGameQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    let signal = game_signal(&id);
    let account = auth.account_id.clone();
    answer_when_changed(&state, &req, &account, query.wait, &signal, || async {
        let view = state.game_view(id.clone(), state.clock.now()).await?;
        // An imported game is read as its collections are; it never changes.
        if view.state.status == GameStatus::Imported {
            let (reader, id) = (auth.account_id.clone(), id.clone());
            state
                .read_own(move |conn| game::readable_game(conn, Some(&reader), &id))
                .await?;
        }
        let etag = game::etag(&view.state);
        Ok((view, etag))
    })
    .await
}

/// Play a move. Checked against the rules, stored, and answered with the
/// new state and the moves played (not the whole move list: append them to
/// the moves read before); the game's `ply` guards against stale and
/// repeated requests. A `message` goes to the opponent with the move, in
/// the same transaction.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    request_body = MoveRequest,
    responses(
        (status = 200, description = "The game after the move", body = MoveAnswer, headers(("ETag" = String, description = "The new state's tag, as `GET` answers it"))),
        (status = 403, description = "Not the caller's game or turn (`not_a_player`, `not_your_turn`), or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Stale or repeated `ply` (`stale_ply`, with `current_ply`), or the game is over (`game_finished`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The move does not parse (`invalid_move_syntax`) or is illegal (`illegal_move`), or a bad `message` (`invalid_message`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "A `message` past 30 in the last hour (`rate_limited`): the move was not played", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/moves")]
pub async fn play_move(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
    body: web::Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let MoveRequest {
        text,
        ply,
        offer_draw: with_offer,
        message,
    } = body.into_inner();
    let play = Play {
        text,
        ply,
        offer_draw: with_offer,
        // Checked before the game is touched: a bad message changes nothing.
        message: message.as_deref().map(messages::checked).transpose()?,
    };
    let answer = state
        .write_then(
            move |conn, outbox| game::play_move(conn, outbox, now, &id, auth.player(), &play),
            move |conn, played| game::move_answer(conn, played, now),
        )
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header((ETAG, game::etag(&answer.state)))
        .json(answer))
}

/// Carries out an action on a game for the caller and answers the game.
async fn act(
    state: web::Data<AppState>,
    auth: Auth,
    id: GameId,
    action: Action,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    let now = state.clock.now();
    let view = state
        .write_then(
            move |conn, outbox| game::act(conn, outbox, now, &id, &auth.account_id, action),
            move |conn, game| game::view_of(conn, game, now),
        )
        .await?;
    Ok(with_etag(view))
}

/// Resign: the opponent wins.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The finished game", body = GameView),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/resign")]
pub async fn resign_game(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::Resign).await
}

/// Abort the game before each side has moved: it counts for nothing.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The aborted game", body = GameView),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Both sides have moved (`abort_refused`), or the game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/abort")]
pub async fn abort_game(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::Abort).await
}

/// Offer a draw (accepting the opponent's offer if one stands). The offer
/// lapses when the opponent moves without accepting it.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The game with the offer, or drawn", body = GameView),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/draw-offer")]
pub async fn offer_draw(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::OfferDraw).await
}

/// Accept the opponent's draw offer.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The drawn game", body = GameView),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No offer by the opponent stands (`no_draw_offer`), or the game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/draw-offer/accept")]
pub async fn accept_draw(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::AcceptDraw).await
}

/// Decline the opponent's draw offer.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The game, the offer gone", body = GameView),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No offer by the opponent stands (`no_draw_offer`), or the game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/draw-offer/decline")]
pub async fn decline_draw(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::DeclineDraw).await
}

/// Withdraw the caller's draw offer.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The game, the offer gone", body = GameView),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The caller has no offer standing (`no_draw_offer`), or the game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[delete("/games/{id}/draw-offer")]
pub async fn withdraw_draw(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::WithdrawDraw).await
}

/// Claim a draw by threefold repetition or the 50-move rule (the side to move).
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The drawn game", body = GameView),
        (status = 403, description = "Not the caller's game or turn, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Neither condition is met (`claim_refused`), or the game is over", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/games/{id}/claim-draw")]
pub async fn claim_draw(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    act(state, auth, id.into_inner(), Action::ClaimDraw).await
}

/// The caller's conditional moves in a game (never the opponent's).
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The caller's lines, in canonical UCI and in SAN", body = StoredConditionals),
        (status = 403, description = "Not the caller's game, or the token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/games/{id}/conditionals")]
pub async fn get_conditionals(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<web::Json<StoredConditionals>, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    Ok(web::Json(
        state
            .read_own(move |conn| conditionals::read(conn, &id, &auth.account_id))
            .await?,
    ))
}

/// Store conditional moves, replacing the caller's lines: while the
/// opponent is to move, "if they play X, I reply Y, ...". Every move is
/// checked against the rules when stored.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    request_body = Conditionals,
    responses(
        (status = 200, description = "The stored lines, in canonical UCI and in SAN", body = StoredConditionals),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "It is the caller's turn (`not_opponents_turn`), or the game is over", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An illegal or unparseable move, an odd line, two replies to one move (`invalid_conditionals`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[put("/games/{id}/conditionals")]
pub async fn replace_conditionals(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
    body: web::Json<Conditionals>,
) -> Result<web::Json<StoredConditionals>, ApiError> {
    auth.require(Scope::GamePlay)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let lines = body.into_inner();
    Ok(web::Json(
        state
            .write(move |conn, _| conditionals::store(conn, now, &id, &auth.account_id, lines))
            .await?,
    ))
}

/// Delete the caller's conditional moves in a game.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "Not the caller's game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[delete("/games/{id}/conditionals")]
pub async fn delete_conditionals(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    let id = id.into_inner();
    state
        .write(move |conn, _| conditionals::remove(conn, &id, &auth.account_id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
