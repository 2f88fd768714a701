//! `/api/v1/collections`: an account's collections of imported games.

use actix_web::{
    HttpResponse, delete, get,
    http::header::{self},
    patch, post,
    web::{self},
};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::{Auth, MaybeAuth},
    domain::{collections, cursor},
    error::{ApiError, Problem},
    middleware::limits::ExpensiveTurn,
    routes::Query,
    state::AppState,
    stored::CollectionId,
    streams::streamed_pgn,
    views::{
        CollectionGames, CollectionList, CollectionView, CreateCollectionRequest, PgnText,
        UpdateCollectionRequest,
    },
};

/// Games read from the database per page of a PGN export.
const EXPORT_PAGE: i64 = 100;

/// Make a collection (private unless asked otherwise).
#[utoipa::path(
    tag = "collections",
    request_body = CreateCollectionRequest,
    responses(
        (status = 201, description = "The collection", body = CollectionView),
        (status = 409, description = "The caller has a collection of that name (`collection_name_taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad name; as many collections as an account may have (`too_many_collections`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/collections")]
pub async fn create_collection(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<CreateCollectionRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let request = body.into_inner();
    let view = state
        .write(move |conn, _| collections::create(conn, &auth.account_id, request, now))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/collections/{}", view.id)))
        .json(view))
}

/// The caller's collections, private ones too, by name.
#[utoipa::path(
    tag = "collections",
    responses((status = 200, description = "The collections", body = CollectionList)),
    security(("bearer" = []))
)]
#[get("/collections")]
pub async fn list_own_collections(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<CollectionList>, ApiError> {
    let list = state
        .read_own(move |conn| collections::list_own(conn, &auth.account_id))
        .await?;
    Ok(web::Json(list))
}

/// A user's public collections (all of them, to the user), by name.
#[utoipa::path(
    tag = "collections",
    params(("username" = String, Path, description = "The owner")),
    responses(
        (status = 200, description = "The collections", body = CollectionList),
        (status = 404, description = "No such user", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/users/{username}/collections")]
pub async fn list_user_collections(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    username: web::Path<String>,
) -> Result<web::Json<CollectionList>, ApiError> {
    let username = username.into_inner();
    let list = state
        .read_lagging(move |conn| collections::list(conn, auth.reader(), &username))
        .await?;
    Ok(web::Json(list))
}

/// One collection: public ones for anyone, private ones for their owner
/// alone (anyone else gets `404`).
#[utoipa::path(
    tag = "collections",
    params(("id" = String, Path, description = "The collection")),
    responses(
        (status = 200, description = "The collection", body = CollectionView),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/collections/{id}")]
pub async fn get_collection(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    id: web::Path<CollectionId>,
) -> Result<web::Json<CollectionView>, ApiError> {
    let id = id.into_inner();
    let view = state
        .read_own(move |conn| collections::view(conn, auth.reader(), &id))
        .await?;
    Ok(web::Json(view))
}

/// Rename a collection, or make it public or private.
#[utoipa::path(
    tag = "collections",
    params(("id" = String, Path, description = "The collection")),
    request_body = UpdateCollectionRequest,
    responses(
        (status = 200, description = "The collection", body = CollectionView),
        (status = 403, description = "A public collection of someone else", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The caller has a collection of that name (`collection_name_taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad name", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[patch("/collections/{id}")]
pub async fn update_collection(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<CollectionId>,
    body: web::Json<UpdateCollectionRequest>,
) -> Result<web::Json<CollectionView>, ApiError> {
    let now = state.clock.now();
    let (id, request) = (id.into_inner(), body.into_inner());
    let view = state
        .write(move |conn, _| collections::update(conn, &auth.account_id, &id, request, now))
        .await?;
    Ok(web::Json(view))
}

/// Delete a collection, and the games it holds that no other collection
/// holds.
#[utoipa::path(
    tag = "collections",
    params(("id" = String, Path, description = "The collection")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "A public collection of someone else", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[delete("/collections/{id}")]
pub async fn delete_collection(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<CollectionId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    // In steps, as bulk work: a collection of thousands of games never
    // holds back other players' moves.
    let owner = auth.account_id;
    loop {
        let (owner, id) = (owner.clone(), id.clone());
        let gone = state
            .bulk_step(move |conn, yielding| collections::delete_step(conn, &owner, &id, yielding))
            .await?;
        if gone {
            return Ok(HttpResponse::NoContent().finish());
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct CollectionGamesQuery {
    /// Games per page, 1 to 100 (default 50).
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A collection's games with their moves, a page at a time, in the order
/// they were imported.
#[utoipa::path(
    tag = "collections",
    params(("id" = String, Path, description = "The collection"), CollectionGamesQuery),
    responses(
        (status = 200, description = "A page of games", body = CollectionGames),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad limit or cursor", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/collections/{id}/games")]
pub async fn list_collection_games(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    id: web::Path<CollectionId>,
    query: Query<CollectionGamesQuery>,
) -> Result<web::Json<CollectionGames>, ApiError> {
    let query = query.into_inner();
    let limit = super::page_limit(
        query.limit,
        collections::DEFAULT_PAGE,
        collections::MAX_PAGE,
    )?;
    let after = query
        .cursor
        .as_deref()
        .map(cursor::decode_number)
        .transpose()?;
    let id = id.into_inner();
    let page = state
        .read_own(move |conn| collections::games(conn, auth.reader(), &id, after, limit))
        .await?;
    Ok(web::Json(page))
}

/// A collection's games as one PGN file, in the order they were imported,
/// streamed.
#[utoipa::path(
    tag = "collections",
    params(("id" = String, Path, description = "The collection")),
    responses(
        (status = 200, description = "The games", body = PgnText, content_type = "application/x-chess-pgn"),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/collections/{id}/games.pgn")]
pub async fn export_collection_pgn(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    id: web::Path<CollectionId>,
    turn: ExpensiveTurn,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    // Seen before the answer begins, so that a hidden one is a plain 404.
    let (reader, seen) = (auth.reader().cloned(), id.clone());
    let view = state
        .read_own(move |conn| collections::view(conn, reader.as_ref(), &seen))
        .await?;
    let reader = auth.reader().cloned();
    let file_name = format!("collection-{}", view.id);
    Ok(streamed_pgn(
        state,
        turn,
        &file_name,
        None,
        move |conn, after| collections::pgn_page(conn, reader.as_ref(), &id, after, EXPORT_PAGE),
    ))
}
