//! `/api/v1/games/{id}/annotations`: what a game's file says beside its
//! moves, and its players' annotations once it has ended.

use actix_web::{HttpResponse, delete, get, put, web};

use crate::{
    auth::{Auth, MaybeAuth},
    credentials::Scope,
    domain::annotations,
    error::{ApiError, Problem},
    state::AppState,
    stored::GameId,
    views::{AnnotateRequest, GameAnnotations, PlayerAnnotation},
};

/// A game's annotations: the comments, NAGs and variations of its PGN file
/// (imported games), and its players' annotations. Readable as its PGN is.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The annotations", body = GameAnnotations),
        (status = 404, description = "No such game, or an imported one in no collection the caller may see", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/games/{id}/annotations")]
pub async fn get_annotations(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    id: web::Path<GameId>,
) -> Result<web::Json<GameAnnotations>, ApiError> {
    let id = id.into_inner();
    Ok(web::Json(
        state
            .read_own(move |conn| annotations::view(conn, auth.reader(), &id))
            .await?,
    ))
}

/// Annotate a ply of one's finished game (ply 0: the game as a whole) with
/// a comment and NAGs, replacing one's annotation there before. The game's
/// PGN carries it as `{username: comment}`.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The game"),
        ("ply" = i32, Path, description = "The ply: 1 is the first move, 0 the game as a whole"),
    ),
    request_body = AnnotateRequest,
    responses(
        (status = 200, description = "The annotation", body = PlayerAnnotation),
        (status = 403, description = "Not a player of the game (`not_a_player`), or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is still played (`game_under_way`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such ply, a comment too long or holding `}`, a bad NAG (`invalid_annotation`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[put("/games/{id}/annotations/{ply}")]
pub async fn annotate_ply(
    state: web::Data<AppState>,
    auth: Auth,
    path: web::Path<(GameId, String)>,
    body: web::Json<AnnotateRequest>,
) -> Result<web::Json<PlayerAnnotation>, ApiError> {
    auth.require(Scope::GamePlay)?;
    let (id, ply) = path.into_inner();
    let ply = annotations::ply_of(&ply)?;
    let now = state.clock.now();
    let request = body.into_inner();
    let annotation = state
        .write(move |conn, _| {
            annotations::annotate(conn, &auth.account_id, &id, ply, &request, now)
        })
        .await?;
    Ok(web::Json(annotation))
}

/// Remove one's annotation of a ply.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The game"),
        ("ply" = i32, Path, description = "The ply"),
    ),
    responses(
        (status = 204, description = "Removed"),
        (status = 403, description = "Not a player of the game, or the token lacks `game:play`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or no annotation of the caller's on that ply", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is still played (`game_under_way`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such ply (`invalid_annotation`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[delete("/games/{id}/annotations/{ply}")]
pub async fn delete_annotation(
    state: web::Data<AppState>,
    auth: Auth,
    path: web::Path<(GameId, String)>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GamePlay)?;
    let (id, ply) = path.into_inner();
    let ply = annotations::ply_of(&ply)?;
    state
        .write(move |conn, _| annotations::remove(conn, &auth.account_id, &id, ply))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
