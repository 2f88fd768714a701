//! `/api/v1/teams`: teams made, joined, left, captained and read.

use actix_web::{HttpResponse, get, http::header, post, web};

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::teams,
    error::{ApiError, Problem},
    routes::{Query, page_limit},
    state::AppState,
    stored::TeamId,
    views::{CreateTeamRequest, TeamList, TeamMemberRequest, TeamQuery, TeamView},
};

/// Make a team: its maker is its first captain.
#[utoipa::path(
    tag = "teams",
    request_body = CreateTeamRequest,
    responses(
        (status = 201, description = "The team", body = TeamView),
        (status = 403, description = "The token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A team goes by this name, whatever its case (`team_name_taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad name or description (`invalid_team`); as many teams as an account may make or belong to (`too_many_teams`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/teams")]
pub async fn create_team(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<CreateTeamRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let request = body.into_inner();
    let view = state
        .write(move |conn, _| {
            let id = teams::create(conn, now, &auth.account_id, &request)?;
            teams::view(conn, &id)
        })
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            header::LOCATION,
            format!("/api/v1/teams/{}", view.summary.id),
        ))
        .json(view))
}

/// Teams, the newest first: all, or a player's.
#[utoipa::path(
    tag = "teams",
    params(TeamQuery),
    responses(
        (status = 200, description = "A page of teams", body = TeamList),
        (status = 422, description = "A bad cursor or limit", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/teams")]
pub async fn list_teams(
    state: web::Data<AppState>,
    query: Query<TeamQuery>,
) -> Result<web::Json<TeamList>, ApiError> {
    let query = query.into_inner();
    let limit = page_limit(query.limit, 50, 100)?;
    let list = state
        .read_lagging(move |conn| teams::list(conn, &query, limit))
        .await?;
    Ok(web::Json(list))
}

/// A team: its members, captains first, and its matches.
#[utoipa::path(
    tag = "teams",
    params(("id" = String, Path, description = "The team")),
    responses(
        (status = 200, description = "The team", body = TeamView),
        (status = 404, description = "No such team", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/teams/{id}")]
pub async fn get_team(
    state: web::Data<AppState>,
    id: web::Path<TeamId>,
) -> Result<web::Json<TeamView>, ApiError> {
    let id = id.into_inner();
    let view = state
        .read_lagging(move |conn| teams::view(conn, &id))
        .await?;
    Ok(web::Json(view))
}

/// Join a team: an open one, or one whose captain invited the caller. A
/// team left without members is taken up by whoever joins, as its captain.
#[utoipa::path(
    tag = "teams",
    params(("id" = String, Path, description = "The team")),
    responses(
        (status = 200, description = "The team", body = TeamView),
        (status = 403, description = "The token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such team", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A member already (`already_joined`), not invited to a team that is not open (`not_invited`), or the team full (`team_full`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "As many teams as an account may belong to (`too_many_teams`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/teams/{id}/join")]
pub async fn join_team(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TeamId>,
) -> Result<web::Json<TeamView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let view = state
        .write(move |conn, _| {
            teams::join(conn, now, &id, &auth.account_id)?;
            teams::view(conn, &id)
        })
        .await?;
    Ok(web::Json(view))
}

/// Leave a team, and the team's matches not yet started that the caller
/// signed up for (a match under way is left by withdrawing from it). A
/// last captain's place goes to the member there longest.
#[utoipa::path(
    tag = "teams",
    params(("id" = String, Path, description = "The team")),
    responses(
        (status = 200, description = "The team", body = TeamView),
        (status = 403, description = "The token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such team", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not a member (`not_a_team_member`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/teams/{id}/leave")]
pub async fn leave_team(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TeamId>,
) -> Result<web::Json<TeamView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let id = id.into_inner();
    let view = state
        .write(move |conn, outbox| {
            teams::leave(conn, outbox, now, &id, &auth.account_id)?;
            teams::view(conn, &id)
        })
        .await?;
    Ok(web::Json(view))
}

/// A captain invites a player, who is told (`team_invited`) and may then
/// join a team that is not open.
#[utoipa::path(
    tag = "teams",
    params(("id" = String, Path, description = "The team")),
    request_body = TeamMemberRequest,
    responses(
        (status = 204, description = "Invited (or invited already)"),
        (status = 403, description = "Not a captain of the team, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such team or user", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A member already (`already_joined`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/teams/{id}/invites")]
pub async fn invite_to_team(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TeamId>,
    body: web::Json<TeamMemberRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let now = state.clock.now();
    let (id, username) = (id.into_inner(), body.into_inner().username);
    state
        .write(move |conn, outbox| {
            teams::invite(conn, outbox, now, &id, &auth.account_id, &username)
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A captain makes a member a captain too: captains organise and accept
/// matches, set board orders and invite.
#[utoipa::path(
    tag = "teams",
    params(("id" = String, Path, description = "The team")),
    request_body = TeamMemberRequest,
    responses(
        (status = 200, description = "The team", body = TeamView),
        (status = 403, description = "Not a captain of the team, or the token lacks `challenge:write`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such team or user", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not a member (`not_a_team_member`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["challenge:write"]))
)]
#[post("/teams/{id}/captains")]
pub async fn add_team_captain(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<TeamId>,
    body: web::Json<TeamMemberRequest>,
) -> Result<web::Json<TeamView>, ApiError> {
    auth.require(Scope::ChallengeWrite)?;
    let (id, username) = (id.into_inner(), body.into_inner().username);
    let view = state
        .write(move |conn, _| {
            teams::make_captain(conn, &id, &auth.account_id, &username)?;
            teams::view(conn, &id)
        })
        .await?;
    Ok(web::Json(view))
}
