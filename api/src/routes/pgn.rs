//! PGN: one game, archives streamed a page at a time, and imports.

use std::{io::Cursor, sync::Arc};

use actix_web::{
    HttpRequest, HttpResponse,
    error::BlockingError,
    get,
    http::header::{ACCEPT, CONTENT_DISPOSITION},
    post,
    web::{self, Bytes},
};
use futures_util::{StreamExt, stream};
use kingpost_core::pgn::{GameTexts, ImportError};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::{Auth, MaybeAuth},
    clock::{DAY, Millis, parse_rfc3339},
    db::DbConnection,
    domain::{
        accounts, collections,
        pgn::{self, ArchiveFormat, GameReport, Imported},
    },
    error::{ApiError, Code, Problem},
    middleware::IMPORT_LIMIT,
    models::game::ArchiveFilter,
    routes::ExpensiveTurn,
    state::AppState,
    stored::{AccountId, GameId},
    views::{
        ArchivedGame, ImportErrorView, ImportReport, ImportRequest, ImportedGameView, PgnText,
        RuleKey, ShortenedView,
    },
};

pub use crate::openapi::PGN;

/// A PGN file streamed a page at a time, so that no answer is held whole:
/// `page` reads the page after a cursor (none: from the start) and gives
/// the cursor after it (none: the page was the last); the first page is
/// read after `first`.
pub fn streamed_pgn<C, F>(
    state: web::Data<AppState>,
    turn: ExpensiveTurn,
    file_name: &str,
    first: Option<C>,
    page: F,
) -> HttpResponse
where
    C: Send + 'static,
    F: Fn(&mut DbConnection, Option<C>) -> Result<(String, Option<C>), ApiError>
        + Clone
        + Send
        + 'static,
{
    // State: the cursor to read after; none once the last page is sent.
    let pages = stream::unfold(Some(first), move |after| {
        let (app, page) = (state.clone(), page.clone());
        async move {
            let after = after?;
            match app.db(move |conn| page(conn, after)).await {
                Ok((text, _)) if text.is_empty() => None,
                Ok((text, next)) => Some((Ok::<_, ApiError>(Bytes::from(text)), next.map(Some))),
                Err(error) => Some((Err(error), None)),
            }
        }
    });
    HttpResponse::Ok()
        .content_type(PGN)
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file_name}.pgn\""),
        ))
        .streaming(pages.map(move |page| {
            // The turn is held until the last page is sent.
            let _held = &turn;
            page.map_err(actix_web::Error::from)
        }))
}
pub const NDJSON: &str = "application/x-ndjson";
/// The most games one import request holds.
pub const IMPORT_GAMES: usize = 10_000;
/// Games stored in one write transaction of an HTTP import: a few
/// milliseconds of the writers' turn.
const IMPORT_BATCH: usize = 50;
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
        .db(move |conn| pgn::game_pgn(conn, auth.reader(), &id))
        .await?;
    Ok(HttpResponse::Ok().content_type(PGN).body(text))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ArchiveQuery {
    /// Only games of this rule set.
    #[param(value_type = Option<RuleKey>)]
    pub rules: Option<String>,
    /// Only games created at or after this time (RFC 3339, or a date `2026-11-30`).
    pub since: Option<String>,
    /// Only games created before this time (RFC 3339, or a date).
    pub until: Option<String>,
    /// Only games that are over.
    #[serde(default)]
    pub finished: bool,
    /// At most this many games.
    pub max: Option<u64>,
}

fn parse_time(name: &str, text: &str) -> Result<Millis, ApiError> {
    use time::{Date, macros::format_description};
    let date = || {
        Date::parse(text, format_description!("[year]-[month]-[day]"))
            .ok()
            .map(|date| (date.midnight().assume_utc().unix_timestamp_nanos() / 1_000_000) as Millis)
    };
    parse_rfc3339(text).or_else(date).ok_or_else(|| {
        ApiError::invalid(
            Code::InvalidQuery,
            format!("`{name}` is not an RFC 3339 time or a date"),
        )
    })
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
        .db(move |conn| accounts::find_by_username(conn, &username))
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
                .db(move |conn| pgn::read_archive(conn, &filter, after, limit, format))
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

fn filter_of(query: &ArchiveQuery) -> Result<ArchiveFilter, ApiError> {
    let rules = query
        .rules
        .as_deref()
        .map(str::parse::<RuleKey>)
        .transpose()
        .map_err(|e| ApiError::invalid(Code::InvalidQuery, e))?;
    Ok(ArchiveFilter {
        account_id: AccountId::default(),
        rules,
        since: query
            .since
            .as_deref()
            .map(|t| parse_time("since", t))
            .transpose()?,
        until: query
            .until
            .as_deref()
            .map(|t| parse_time("until", t))
            .transpose()?,
        finished_only: query.finished,
    })
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
    query: web::Query<ArchiveQuery>,
    req: HttpRequest,
    turn: ExpensiveTurn,
) -> Result<HttpResponse, ApiError> {
    let filter = filter_of(&query)?;
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

impl From<&ImportError> for ImportErrorView {
    fn from(error: &ImportError) -> ImportErrorView {
        match error {
            ImportError::IllegalMove { ply, text, reason } => ImportErrorView {
                ply: Some(*ply),
                move_text: Some(text.clone()),
                reason: reason.clone(),
            },
            other => ImportErrorView {
                ply: None,
                move_text: None,
                reason: other.to_string(),
            },
        }
    }
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
    query: web::Query<ImportQuery>,
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
    let now = state.clock.now();
    // Counted before anything is stored: a file over the cap changes nothing.
    let (bytes, count) = web::block(move || count_games(bytes)).await??;
    let owner = auth.account_id.clone();
    let name = query.into_inner().collection;
    let collection = state
        .write(move |conn, _| collections::for_import(conn, &owner, name.as_deref(), now))
        .await?;
    // Read, replayed and stored a batch at a time, so that memory holds the
    // body and two batches, not every game made ready: the next batch is
    // read and replayed (off the database: the CPU work holds no
    // connection) while the last is stored.
    let account = auth.account_id.clone();
    let mut outcomes = Vec::with_capacity(count);
    let mut next = prepare_batch(GameTexts::new(Cursor::new(bytes)), account.clone(), now);
    loop {
        let (texts, batch) = next.await??;
        if batch.is_empty() {
            break;
        }
        next = prepare_batch(texts, account.clone(), now);
        // Stored in steps as bulk work: a request waiting for the writers'
        // turn ends a step after the game being stored.
        let batch = Arc::new(batch);
        let mut from = 0;
        while from < batch.len() {
            let (games, into) = (batch.clone(), collection.clone());
            let stored = state
                .bulk_step(move |conn, yielding| {
                    pgn::store_batch(conn, &games[from..], &into, yielding)
                })
                .await?;
            from += stored.len();
            outcomes.extend(stored);
        }
    }
    let mut report = report_of(&outcomes);
    report.collection_id = Some(collection.into());
    Ok(web::Json(report))
}

/// The games of an import file still to be read.
type ImportTexts = GameTexts<Cursor<Vec<u8>>>;

/// How many games `bytes` holds, refusing a file of more than
/// [`IMPORT_GAMES`]; the bytes are given back.
fn count_games(bytes: Vec<u8>) -> Result<(Vec<u8>, usize), ApiError> {
    let mut count = 0;
    for text in GameTexts::new(bytes.as_slice()) {
        text.map_err(|e| ApiError::MalformedRequest(e.to_string()))?;
        count += 1;
        if count > IMPORT_GAMES {
            return Err(ApiError::PayloadTooLarge(format!(
                "an import holds at most {IMPORT_GAMES} games: split the file"
            )));
        }
    }
    Ok((bytes, count))
}

/// Reads and replays the next [`IMPORT_BATCH`] games of `texts` on a
/// blocking thread, started at once; gives `texts` back with them.
fn prepare_batch(
    mut texts: ImportTexts,
    account: AccountId,
    now: Millis,
) -> impl Future<Output = Result<Result<(ImportTexts, Vec<pgn::ReadGame>), ApiError>, BlockingError>>
{
    web::block(
        move || match pgn::prepare_next(&mut texts, IMPORT_BATCH, &account, now) {
            (batch, None) => Ok((texts, batch)),
            (_, Some(error)) => Err(ApiError::MalformedRequest(error.to_string())),
        },
    )
}

/// Counts and lists what became of each game.
pub fn report_of(games: &[GameReport]) -> ImportReport {
    let mut report = ImportReport {
        read: games.len(),
        imported: 0,
        duplicates: 0,
        shortened: 0,
        rejected: 0,
        collection_id: None,
        games: Vec::with_capacity(games.len()),
    };
    for (i, game) in games.iter().enumerate() {
        let (id, duplicate, error) = match &game.outcome {
            Ok(Imported::New(id)) => {
                report.imported += 1;
                (Some(id.clone()), false, None)
            }
            Ok(Imported::Duplicate(id)) => {
                report.duplicates += 1;
                (Some(id.clone()), true, None)
            }
            Err(error) => {
                report.rejected += 1;
                (None, false, Some(ImportErrorView::from(error)))
            }
        };
        report.shortened += usize::from(game.shortened.is_some());
        let label = game.label.clone();
        report.games.push(ImportedGameView {
            index: i + 1,
            event: label.event,
            site: label.site,
            date: label.date,
            round: label.round,
            white: label.white,
            black: label.black,
            id: id.map(String::from),
            duplicate,
            shortened: game.shortened.map(|s| ShortenedView {
                plies: s.plies,
                dropped: s.dropped,
                result: s.outcome.result().to_owned(),
                reason: s.outcome.reason().to_owned(),
            }),
            warnings: game.warnings.iter().map(ToString::to_string).collect(),
            error,
        });
    }
    report
}
