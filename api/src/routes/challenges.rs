//! `/api/v1/challenges`: offers of games.

use actix_web::{HttpRequest, HttpResponse, delete, get, http::header, post, web};

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::challenge::{self},
    error::{ApiError, Problem},
    notify::seeks_signal,
    routes::{
        Query,
        long_poll::{answer_when_changed, etag_of},
        page_limit,
    },
    state::AppState,
    stored::ChallengeId,
    views::{
        ChallengeList, ChallengeView, CreateChallengeRequest, GameView, IncomingChallenges,
        IncomingQuery, SeekList, SeekQuery,
    },
};

/// Challenge an account, or anyone.
#[utoipa::path(
    tag = "challenges",
    request_body = CreateChallengeRequest,
    responses(
        (status = 201, description = "The challenge", body = ChallengeView),
        (status = 403, description = "The opponent has muted the caller (`forbidden`), or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such opponent", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown rule set, start not of the rule set or over already, bad FEN, bad days per move; a rated game or a rating range from a FEN start (`unrated_start`, `invalid_rating_range`); as many open challenges or seeks as an account may have (`too_many_challenges`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/challenges")]
pub async fn create_challenge(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<CreateChallengeRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let view = state
        .write(move |conn, outbox| {
            let id = challenge::create(conn, outbox, now, &auth.account_id, &body)?;
            challenge::view(conn, &auth.account_id, &id)
        })
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/challenges/{}", view.id)))
        .json(view))
}

/// The caller's incoming and outgoing challenges, and open ones by others.
#[utoipa::path(
    tag = "challenges",
    responses(
        (status = 200, description = "The challenges", body = ChallengeList),
    ),
    security(("bearer" = []))
)]
#[get("/challenges")]
pub async fn list_challenges(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<ChallengeList>, ApiError> {
    let list = state
        .read_own(move |conn| challenge::list(conn, &auth.account_id))
        .await?;
    Ok(web::Json(list))
}

/// Open challenges addressed to the caller, newest first, a page at a time.
#[utoipa::path(
    tag = "challenges",
    params(IncomingQuery),
    responses(
        (status = 200, description = "A page of them", body = IncomingChallenges),
        (status = 422, description = "A cursor or limit this API did not give", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/challenges/incoming")]
pub async fn list_incoming_challenges(
    state: web::Data<AppState>,
    auth: Auth,
    query: Query<IncomingQuery>,
) -> Result<web::Json<IncomingChallenges>, ApiError> {
    let IncomingQuery { cursor, limit } = query.into_inner();
    let limit = page_limit(limit, 50, 100)?;
    let page = state
        .read_own(move |conn| challenge::incoming(conn, &auth.account_id, cursor.as_deref(), limit))
        .await?;
    Ok(web::Json(page))
}

/// Open seeks (challenges to anyone) the caller may accept: by others, with
/// no rating range or one that holds the caller's rating in the seek's
/// pool; newest first, filtered by rule set, start, days per move, rated.
/// With `wait` and `If-None-Match`, a long poll: the lobby learns of seeks
/// as they are opened, taken or withdrawn.
#[utoipa::path(
    tag = "challenges",
    params(
        SeekQuery,
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` last read: `304` if the page has not changed since (with `wait`, once it changes or the wait ends)"),
    ),
    responses(
        (status = 200, description = "A page of seeks", body = SeekList,
            headers(("ETag" = String, description = "Names this page of seeks"))),
        (status = 304, description = "Unchanged since the ETag sent (after the wait, if any)"),
        (status = 422, description = "An unknown filter, cursor or limit, or a wait over 60 seconds", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "With `wait`: the account or address holds 20 or 50 streams and long polls open already (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/seeks")]
pub async fn list_seeks(
    state: web::Data<AppState>,
    auth: Auth,
    query: Query<SeekQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let limit = page_limit(query.limit, 50, 100)?;
    let account = auth.account_id;
    answer_when_changed(&state, &req, &account, query.wait, &seeks_signal(), || {
        let (query, account) = (query.clone(), account.clone());
        let list = state.read_own(move |conn| challenge::seeks(conn, &account, &query, limit));
        async move {
            let list = list.await?;
            let etag = etag_of(&list);
            Ok((list, etag))
        }
    })
    .await
}

/// One challenge.
#[utoipa::path(
    tag = "challenges",
    params(("id" = String, Path, description = "The challenge")),
    responses(
        (status = 200, description = "The challenge", body = ChallengeView),
        (status = 404, description = "No such challenge", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/challenges/{id}")]
pub async fn get_challenge(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<ChallengeId>,
) -> Result<web::Json<ChallengeView>, ApiError> {
    let id = id.into_inner();
    Ok(web::Json(
        state
            .read_own(move |conn| challenge::view(conn, &auth.account_id, &id))
            .await?,
    ))
}

/// Accept a challenge: the game begins.
#[utoipa::path(
    tag = "challenges",
    params(("id" = String, Path, description = "The challenge")),
    responses(
        (status = 201, description = "The new game", body = GameView),
        (status = 403, description = "Not addressed to the caller, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such challenge", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The challenge is no longer open, or a seek's rating range leaves the caller out (`outside_rating_range`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/challenges/{id}/accept")]
pub async fn accept_challenge(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<ChallengeId>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let game_id = state
        .write(move |conn, outbox| challenge::accept(conn, outbox, now, &id, &auth.account_id))
        .await?;
    let view = state.game_view(game_id, now).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", view.state.id)))
        .json(view))
}

/// Decline a challenge addressed to the caller.
#[utoipa::path(
    tag = "challenges",
    params(("id" = String, Path, description = "The challenge")),
    responses(
        (status = 200, description = "The declined challenge", body = ChallengeView),
        (status = 403, description = "Not addressed to the caller, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such challenge", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The challenge is no longer open", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/challenges/{id}/decline")]
pub async fn decline_challenge(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<ChallengeId>,
) -> Result<web::Json<ChallengeView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let view = state
        .write(move |conn, outbox| {
            challenge::decline(conn, outbox, now, &id, &auth.account_id)?;
            challenge::view(conn, &auth.account_id, &id)
        })
        .await?;
    Ok(web::Json(view))
}

/// Withdraw the caller's own challenge.
#[utoipa::path(
    tag = "challenges",
    params(("id" = String, Path, description = "The challenge")),
    responses(
        (status = 200, description = "The cancelled challenge", body = ChallengeView),
        (status = 403, description = "Not the caller's challenge, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such challenge", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The challenge is no longer open", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[delete("/challenges/{id}")]
pub async fn cancel_challenge(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<ChallengeId>,
) -> Result<web::Json<ChallengeView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let view = state
        .write(move |conn, outbox| {
            challenge::cancel(conn, outbox, now, &id, &auth.account_id)?;
            challenge::view(conn, &auth.account_id, &id)
        })
        .await?;
    Ok(web::Json(view))
}
