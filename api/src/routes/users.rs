//! Players as anyone sees them: profiles, rating histories, leaderboards.

use actix_web::{get, web};

use crate::{
    domain::{profiles, ratings},
    error::{ApiError, Problem},
    routes::{Query, page_limit},
    state::AppState,
    views::{Leaderboard, PoolQuery, RatingHistory, UserProfile},
};

/// Entries per page of a history or a leaderboard, unless asked otherwise.
const PAGE: i64 = 50;
const MAX_PAGE: i64 = 100;

/// A player's profile: ratings per pool (deviation grown with inactivity),
/// wins, draws and losses per rule set, games under way, last activity.
#[utoipa::path(
    tag = "users",
    params(("username" = String, Path, description = "The player")),
    responses(
        (status = 200, description = "The profile", body = UserProfile),
        (status = 404, description = "No such user", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/users/{username}")]
pub async fn get_user(
    state: web::Data<AppState>,
    username: web::Path<String>,
) -> Result<web::Json<UserProfile>, ApiError> {
    let now = state.clock.now();
    let username = username.into_inner();
    let profile = state
        .read_lagging(move |conn| profiles::profile(conn, &username, now))
        .await?;
    Ok(web::Json(profile))
}

/// A player's rating after each rated game of a pool, oldest first.
#[utoipa::path(
    tag = "users",
    params(("username" = String, Path, description = "The player"), PoolQuery),
    responses(
        (status = 200, description = "A page of the history", body = RatingHistory),
        (status = 404, description = "No such user", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An unknown pool, cursor or limit", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/users/{username}/rating-history")]
pub async fn get_rating_history(
    state: web::Data<AppState>,
    username: web::Path<String>,
    query: Query<PoolQuery>,
) -> Result<web::Json<RatingHistory>, ApiError> {
    let query = query.into_inner();
    let pool = query.pool();
    let limit = page_limit(query.limit, PAGE, MAX_PAGE)?;
    let username = username.into_inner();
    let history = state
        .read_lagging(move |conn| {
            ratings::history(conn, &username, pool, query.cursor.as_deref(), limit)
        })
        .await?;
    Ok(web::Json(history))
}

/// A pool's established ratings (deviation below 110 now) of players with
/// a rated game in it within the last year, highest first.
#[utoipa::path(
    tag = "users",
    params(PoolQuery),
    responses(
        (status = 200, description = "A page of the leaderboard", body = Leaderboard),
        (status = 422, description = "An unknown pool, cursor or limit", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/leaderboard")]
pub async fn get_leaderboard(
    state: web::Data<AppState>,
    query: Query<PoolQuery>,
) -> Result<web::Json<Leaderboard>, ApiError> {
    let now = state.clock.now();
    let query = query.into_inner();
    let pool = query.pool();
    let limit = page_limit(query.limit, PAGE, MAX_PAGE)?;
    let board = state
        .read_lagging(move |conn| {
            ratings::leaderboard(conn, pool, query.cursor.as_deref(), limit, now)
        })
        .await?;
    Ok(web::Json(board))
}
