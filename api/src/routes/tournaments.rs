//! `/api/v1/tournaments`: round robins, Swiss and team matches organised,
//! joined, left, read, and exported (PGN; a Swiss's TRF); a team match
//! accepted and its boards ordered.

use actix_web::{HttpResponse, get, http::header, post, put, web};

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::tournament::{lifecycle, team_match, view},
    error::{ApiError, Problem},
    openapi::PGN,
    routes::{Query, page_limit},
    state::AppState,
    stored::TournamentId,
    views::{
        BoardOrderRequest, CreateTournamentRequest, PgnText, TournamentList, TournamentQuery,
        TournamentView, TrfText,
    },
};

/// Organise a round robin, a Swiss or a team match: open for sign-up until
/// full or its deadline. A Swiss takes late entries until its last round is
/// paired; a team match is organised by a captain of its home team and
/// accepted by one of its away team.
#[utoipa::path(
    tag = "tournaments",
    request_body = CreateTournamentRequest,
    responses(
        (status = 201, description = "The tournament", body = TournamentView),
        (status = 403, description = "The token lacks `challenge:write`, or a team match's organiser is not a captain of its home team", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "A team match's team does not exist", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad name, rule set, start (one over already among them), time, capacity, rating range or deadline; as many unfinished tournaments as an account may organise (`too_many_tournaments`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/tournaments")]
pub async fn create_tournament(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<CreateTournamentRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let request = body.into_inner();
    let view = state
        .write(move |conn, _| {
            let id = lifecycle::create(conn, now, &auth.account_id, &request)?;
            view::view(conn, &id)
        })
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            header::LOCATION,
            format!("/api/v1/tournaments/{}", view.summary.id),
        ))
        .json(view))
}

/// Tournaments, newest first: open, under way or finished, by rule set.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = TournamentList),
        (status = 422, description = "An unknown status, rule set, cursor or limit", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments")]
pub async fn list_tournaments(
    state: web::Data<AppState>,
    query: Query<TournamentQuery>,
) -> Result<web::Json<TournamentList>, ApiError> {
    let query = query.into_inner();
    let limit = page_limit(query.limit, 50, 100)?;
    let list = state
        .read_lagging(move |conn| view::list(conn, &query, limit))
        .await?;
    Ok(web::Json(list))
}

/// A tournament: its settings, players, standings and crosstable's games.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}")]
pub async fn get_tournament(
    state: web::Data<AppState>,
    id: web::Path<TournamentId>,
) -> Result<web::Json<TournamentView>, ApiError> {
    let id = id.into_inner();
    let view = state
        .read_lagging(move |conn| view::view(conn, &id))
        .await?;
    Ok(web::Json(view))
}

/// Sign up: the tournament starts when this fills it (a round robin's
/// games created at once, a Swiss's first round paired). A Swiss under way
/// takes an entry until its last round is paired: the player is absent
/// (no point) from the rounds before and paired from the next.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 403, description = "The token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not open (`tournament_closed`), full (`tournament_full`), joined already (`already_joined`), or the caller's rating outside its range (`outside_rating_range`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/tournaments/{id}/join")]
pub async fn join_tournament(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TournamentId>,
) -> Result<web::Json<TournamentView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let joined = id.clone();
    // The answer follows the change's follow-ups: a Swiss this fills has
    // its first round paired by then.
    let view = state
        .write_then(
            move |conn, outbox| lifecycle::join(conn, outbox, now, &joined, &auth.account_id),
            move |conn, ()| view::view(conn, &id),
        )
        .await?;
    Ok(web::Json(view))
}

/// Leave before the start, or withdraw after it: the caller's games under
/// way are resigned, and their results count by the withdrawal rule
/// (annulled when fewer than half were finished).
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 403, description = "The token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not playing in it (`not_joined`), or it is over (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/tournaments/{id}/leave")]
pub async fn leave_tournament(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TournamentId>,
) -> Result<web::Json<TournamentView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let left = id.clone();
    // The answer follows the change's follow-ups: a round this ends is
    // paired by then.
    let view = state
        .write_then(
            move |conn, outbox| lifecycle::leave(conn, outbox, now, &left, &auth.account_id),
            move |conn, ()| view::view(conn, &id),
        )
        .await?;
    Ok(web::Json(view))
}

/// Every game of the tournament in PGN, by round and board, with `Event`,
/// `Round` and `Board`.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The games in PGN", body = PgnText, content_type = "application/x-chess-pgn"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/games.pgn")]
pub async fn export_tournament_pgn(
    state: web::Data<AppState>,
    id: web::Path<TournamentId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let text = state.read_lagging(move |conn| view::pgn(conn, &id)).await?;
    Ok(HttpResponse::Ok().content_type(PGN).body(text))
}

/// A Swiss as FIDE's Tournament Report File (TRF-2016), for other pairing
/// programs to check: each player by pairing number, each round's
/// opponent, colour and result (`U` the pairing-allocated bye, `Z` an
/// absence; a game under way blank).
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The report", body = TrfText, content_type = "text/plain"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A round robin, or a Swiss not yet started (`not_a_swiss`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/tournaments/{id}/report.trf")]
pub async fn export_tournament_trf(
    state: web::Data<AppState>,
    id: web::Path<TournamentId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let text = state.read_lagging(move |conn| view::trf(conn, &id)).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(text))
}

/// A captain of a team match's away team accepts it: a match not accepted
/// by its start time is cancelled. It starts now if both sides are full
/// (and it starts once full).
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The team match")),
    responses(
        (status = 200, description = "The match", body = TournamentView),
        (status = 403, description = "Not a captain of the away team, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not a team match (`not_a_team_member`), or no longer open (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/tournaments/{id}/accept")]
pub async fn accept_team_match(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TournamentId>,
) -> Result<web::Json<TournamentView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let view = state
        .write(move |conn, outbox| {
            team_match::accept(conn, outbox, now, &id, &auth.account_id)?;
            view::view(conn, &id)
        })
        .await?;
    Ok(web::Json(view))
}

/// A captain sets their team's board order before the start: the players
/// named first, in this order, the others after them by rating. Sent
/// again, it replaces the order.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = String, Path, description = "The team match")),
    request_body = BoardOrderRequest,
    responses(
        (status = 200, description = "The match", body = TournamentView),
        (status = 403, description = "Not a captain of the players' team, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not a team match (`not_a_team_member`), or started (`tournament_closed`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A player not signed up, named twice, or of the other team (`invalid_tournament`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[put("/tournaments/{id}/board-order")]
pub async fn set_board_order(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TournamentId>,
    body: web::Json<BoardOrderRequest>,
) -> Result<web::Json<TournamentView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let (id, order) = (id.into_inner(), body.into_inner());
    let view = state
        .write(move |conn, _| {
            team_match::set_order(conn, &id, &auth.account_id, &order.usernames)?;
            view::view(conn, &id)
        })
        .await?;
    Ok(web::Json(view))
}
