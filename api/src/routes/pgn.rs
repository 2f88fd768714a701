//! PGN: one game, archives streamed a page at a time, and imports.

use actix_web::{
    HttpRequest, HttpResponse, get,
    http::header::{ACCEPT, CONTENT_DISPOSITION},
    post,
    web::{self, Bytes},
};
use futures_util::{StreamExt, stream};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::{Auth, MaybeAuth},
    clock::{DAY, Millis},
    domain::{
        accounts,
        pgn::{self, ArchiveFormat},
    },
    error::{ApiError, Problem},
    imports,
    middleware::IMPORT_LIMIT,
    middleware::limits::ExpensiveTurn,
    models::game::ArchiveFilter,
    openapi::PGN,
    routes::Query,
    state::AppState,
    stored::{AccountId, GameId},
    views::{ArchivedGame, ImportReport, ImportRequest, PgnText, RuleKey, TimeOrDay},
};

pub const NDJSON: &str = "application/x-ndjson";
/// Games per page of an archive: the most held in memory at once.
const PAGE: i64 = 100;

/// The PGN of a game, with its variant tags and annotations. An imported
/// game is read as its collections are: by its importer, and by everyone
/// once a public collection holds it.
#[utoipa::path(
    tag = "pgn",
    params(("id" = String, Path, description = "The game")),
    responses(
        (status = 200, description = "The game in PGN", body = PgnText, content_type = "application/x-chess-pgn"),
        (status = 404, description = "No such game, or an imported one in no collection the caller may see", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/games/{id}/pgn")]
pub async fn export_game_pgn(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let text = state
        .read_lagging(move |conn| pgn::game_pgn(conn, auth.reader(), &id))
        .await?;
    Ok(HttpResponse::Ok().content_type(PGN).body(text))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ArchiveQuery {
    /// Only games of this rule set.
    pub rules: Option<RuleKey>,
    /// Only games created at or after this time (RFC 3339, or a date `2026-11-30`).
    #[param(value_type = Option<String>)]
    pub since: Option<TimeOrDay>,
    /// Only games created before this time (RFC 3339, or a date).
    #[param(value_type = Option<String>)]
    pub until: Option<TimeOrDay>,
    /// Only games that are over.
    #[serde(default)]
    pub finished: bool,
    /// At most this many games.
    pub max: Option<u64>,
}

fn format_of(req: &HttpRequest) -> ArchiveFormat {
    let accept = req
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if accept.contains(NDJSON) {
        ArchiveFormat::Ndjson
    } else {
        ArchiveFormat::Pgn
    }
}

/// Streams the games of `filter`, a page at a time, up to `max`.
async fn stream_archive(
    state: web::Data<AppState>,
    turn: ExpensiveTurn,
    username: String,
    mut filter: ArchiveFilter,
    max: u64,
    format: ArchiveFormat,
    file_name: String,
) -> Result<HttpResponse, ApiError> {
    let account = state
        .read_lagging(move |conn| accounts::find_by_username(conn, &username))
        .await?;
    filter.account_id = account.id;
    // The reads follow one another, each after the cursor of the last,
    // which is known once a page is read; each page is written on a
    // blocking thread while the next is read, so that the two share the
    // cores. State: the cursor after the last page read, and how many
    // games may follow.
    let reads = stream::unfold(Some((None, max)), move |state_now| {
        let (app, filter) = (state.clone(), filter.clone());
        async move {
            let (after, remaining) = state_now?;
            if remaining == 0 {
                return None;
            }
            let limit = PAGE.min(i64::try_from(remaining).unwrap_or(PAGE));
            let page = app
                .read_lagging(move |conn| {
                    pgn::read_archive(conn, &filter, after.clone(), limit, format)
                })
                .await;
            match page {
                Ok(page) if page.count() == 0 => None,
                Ok(page) => {
                    let left = remaining.saturating_sub(page.count() as u64);
                    let next = page.next.clone().map(|cursor| (Some(cursor), left));
                    Some((Ok::<_, ApiError>(page), next))
                }
                Err(error) => Some((Err(error), None)),
            }
        }
    });
    let pages = reads
        .map(|read| async move {
            let page = read?;
            let text = web::block(move || pgn::write_archive(page)).await??;
            Ok::<_, ApiError>(Bytes::from(text))
        })
        .buffered(2);
    let (content_type, extension) = match format {
        ArchiveFormat::Pgn => (PGN, "pgn"),
        ArchiveFormat::Ndjson => (NDJSON, "ndjson"),
    };
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file_name}.{extension}\""),
        ))
        .streaming(pages.map(move |page| {
            // The turn is held until the last page is sent.
            let _held = &turn;
            page.map_err(actix_web::Error::from)
        })))
}

fn filter_of(query: &ArchiveQuery) -> ArchiveFilter {
    ArchiveFilter {
        account_id: AccountId::default(),
        rules: query.rules,
        since: query.since.map(|bound| bound.0),
        until: query.until.map(|bound| bound.0),
        finished_only: query.finished,
    }
}

/// A user's games as one PGN file (or NDJSON with `Accept: application/x-ndjson`),
/// oldest first, streamed.
#[utoipa::path(
    tag = "pgn",
    params(("username" = String, Path, description = "The player"), ArchiveQuery),
    responses(
        (status = 200, description = "The games", content(
            (PgnText = "application/x-chess-pgn"),
            (ArchivedGame = "application/x-ndjson"),
        )),
        (status = 404, description = "No such user", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad filter", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/users/{username}/games.pgn")]
pub async fn export_user_games(
    state: web::Data<AppState>,
    username: web::Path<String>,
    query: Query<ArchiveQuery>,
    req: HttpRequest,
    turn: ExpensiveTurn,
) -> Result<HttpResponse, ApiError> {
    let filter = filter_of(&query);
    let username = username.into_inner();
    let name = format!("{username}-games");
    stream_archive(
        state,
        turn,
        username,
        filter,
        query.max.unwrap_or(u64::MAX),
        format_of(&req),
        name,
    )
    .await
}

#[derive(Debug, Deserialize)]
pub struct MonthPath {
    pub username: String,
    pub year: i32,
    pub month: u8,
}

/// A user's games created in one month (UTC), as PGN or NDJSON, streamed.
#[utoipa::path(
    tag = "pgn",
    params(
        ("username" = String, Path, description = "The player"),
        ("year" = i32, Path, description = "The year, e.g. 2026"),
        ("month" = u8, Path, description = "The month, 1 to 12"),
    ),
    responses(
        (status = 200, description = "The month's games", content(
            (PgnText = "application/x-chess-pgn"),
            (ArchivedGame = "application/x-ndjson"),
        )),
        (status = 404, description = "No such user or month", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/users/{username}/games/{year}/{month}.pgn")]
pub async fn export_monthly_archive(
    state: web::Data<AppState>,
    path: web::Path<MonthPath>,
    req: HttpRequest,
    turn: ExpensiveTurn,
) -> Result<HttpResponse, ApiError> {
    let MonthPath {
        username,
        year,
        month,
    } = path.into_inner();
    let first_day = |year: i32, month: u8| {
        time::Month::try_from(month)
            .ok()
            .and_then(|m| time::Date::from_calendar_date(year, m, 1).ok())
            .map(|date| (date.midnight().assume_utc().unix_timestamp_nanos() / 1_000_000) as Millis)
    };
    let since = first_day(year, month)
        .ok_or_else(|| ApiError::NotFound(format!("month {year}/{month}")))?;
    let until = if month == 12 {
        first_day(year + 1, 1)
    } else {
        first_day(year, month + 1)
    }
    .unwrap_or(since + 31 * DAY);
    let filter = ArchiveFilter {
        account_id: AccountId::default(),
        rules: None,
        since: Some(since),
        until: Some(until),
        finished_only: false,
    };
    let name = format!("{username}-{year}-{month:02}");
    stream_archive(
        state,
        turn,
        username,
        filter,
        u64::MAX,
        format_of(&req),
        name,
    )
    .await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ImportQuery {
    /// The caller's collection to file the games in, made (private) if it
    /// does not exist; `Imported games` when left out.
    pub collection: Option<String>,
}

/// Import PGN (one game or many, up to 10,000 a request) for study: each
/// game replayed under the rule set its `Variant` tag names, from its
/// `FEN` tag, up to where the rules end it (moves after are dropped and
/// reported). Bad games never stop the others, and every game of the file
/// is in the report; comments, NAGs and variations are kept as the file
/// gives them. Files that are not UTF-8 are read as Windows-1252, game by
/// game. The games are stored 50 at a time, so that an import never keeps
/// other players' moves waiting; one import runs at a time per account. A
/// game the caller imported before (every tag, move and note the same) is
/// counted a duplicate; another account's games are never found.
#[utoipa::path(
    tag = "pgn",
    params(ImportQuery),
    request_body(
        description = "PGN up to 8 MiB: as JSON `{\"pgn\": \"...\"}`, or as the file's bytes \
            (`application/octet-stream`; `application/x-chess-pgn` and `text/plain` are read alike)",
        content(
            (ImportRequest = "application/json"),
            (PgnText = "application/octet-stream"),
        ),
    ),
    responses(
        (status = 200, description = "What became of each game", body = ImportReport),
        (status = 400, description = "A JSON body that is not `{\"pgn\": \"...\"}`, or text that cannot be read as PGN (`malformed_request`)", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 8 MiB, or holds over 10,000 games", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad collection name, or a new collection past the account's (`too_many_collections`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/imports")]
pub async fn create_import(
    state: web::Data<AppState>,
    auth: Auth,
    query: Query<ImportQuery>,
    req: HttpRequest,
    mut body: web::Payload,
) -> Result<web::Json<ImportReport>, ApiError> {
    let _slot = state.import_slots.acquire(&auth.account_id)?;
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| ApiError::MalformedRequest(e.to_string()))?;
        if bytes.len() + chunk.len() > IMPORT_LIMIT {
            return Err(ApiError::PayloadTooLarge(format!(
                "the body is larger than {IMPORT_LIMIT} bytes"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    // JSON (`{"pgn": ...}`) rather than PGN itself.
    if super::json_body(&req) {
        let request: ImportRequest = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::MalformedRequest(format!("the body is not {{\"pgn\": ...}}: {e}"))
        })?;
        bytes = request.pgn.into_bytes();
    }
    let (owner, collection) = (auth.account_id.clone(), query.into_inner().collection);
    let report = imports::import(&state, owner, collection, bytes).await?;
    Ok(web::Json(report))
}
