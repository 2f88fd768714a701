//! The import pipeline: a PGN file counted, then read, replayed and stored a
//! batch at a time, as bulk work that gives the writers' turn to requests.

use std::{
    future::Future,
    io::Cursor,
    sync::{Arc, OnceLock},
};

use kingpost_core::pgn::GameTexts;

use crate::{
    clock::Millis,
    db,
    domain::{
        collections,
        pgn::{self, report_of},
    },
    error::ApiError,
    state::AppState,
    stored::AccountId,
    views::ImportReport,
    workers::Workers,
};

/// New games past which an import brings the planner's statistics up to
/// date: a bulk import, not the few games a player files.
const STATISTICS_AFTER: usize = 1_000;

/// The most games one import request holds.
pub const IMPORT_GAMES: usize = 10_000;
/// Games stored in one write transaction of an HTTP import: a few
/// milliseconds of the writers' turn.
const IMPORT_BATCH: usize = 50;

/// Threads reading and replaying imports' games: CPU alone, holding no
/// connection or turn, at the lagging reads' lower priority, so that on a
/// busy machine the moves come first. Two: a batch read while another is.
const READING_THREADS: usize = 2;
const READING_NICENESS: i32 = 10;

/// Runs `work` on the reading threads, begun at once (not when awaited).
fn on_reading_threads<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> impl Future<Output = Result<T, ApiError>> {
    static THREADS: OnceLock<Workers> = OnceLock::new();
    let threads = THREADS.get_or_init(|| {
        Workers::start("kingpost-import-reading", READING_THREADS, READING_NICENESS)
    });
    let running = actix_web::rt::spawn(threads.run(work));
    async move {
        match running.await {
            Ok(Ok(done)) => done,
            _ => Err(ApiError::Internal(
                "reading an import failed: its thread panicked".to_owned(),
            )),
        }
    }
}

/// Imports the games of `bytes` for `owner` into its collection named
/// `collection_name` (made if missing; `Imported games` when none), and
/// reports what became of each.
pub async fn import(
    state: &AppState,
    owner: AccountId,
    collection_name: Option<String>,
    bytes: Vec<u8>,
) -> Result<ImportReport, ApiError> {
    let now = state.clock.now();
    // Counted before anything is stored: a file over the cap changes nothing.
    let (bytes, count) = on_reading_threads(move || count_games(bytes)).await?;
    let account = owner.clone();
    let collection = state
        .write(move |conn, _| {
            collections::for_import(conn, &account, collection_name.as_deref(), now)
        })
        .await?;
    // Read, replayed and stored a batch at a time, so that memory holds the
    // body and two batches, not every game made ready: the next batch is
    // read and replayed (off the database: the CPU work holds no
    // connection) while the last is stored.
    let mut outcomes = Vec::with_capacity(count);
    // A game the file holds twice is filed twice.
    let mut seen = pgn::Occurrences::default();
    let mut next = prepare_batch(GameTexts::new(Cursor::new(bytes)), owner.clone(), now);
    loop {
        let (texts, batch) = next.await?;
        if batch.is_empty() {
            break;
        }
        next = prepare_batch(texts, owner.clone(), now);
        // Stored in steps as bulk work: a request waiting for the writers'
        // turn ends a step after the game being stored.
        let batch = Arc::new(batch);
        let mut from = 0;
        while from < batch.len() {
            let (games, into) = (batch.clone(), collection.clone());
            let mut counted = std::mem::take(&mut seen);
            let (stored, counted) = state
                .bulk_step(move |conn, yielding| {
                    let stored =
                        pgn::store_batch(conn, &games[from..], &into, &mut counted, yielding)?;
                    Ok((stored, counted))
                })
                .await?;
            seen = counted;
            from += stored.len();
            outcomes.extend(stored);
        }
    }
    // Its games' positions and counts, staged as they were stored, join
    // the index and the explorer in steps before the import answers.
    while !state
        .bulk_step(|conn, yielding| pgn::index_staged_in_steps(conn, yielding))
        .await?
    {}
    let mut report = report_of(&outcomes);
    report.collection_id = Some(collection.into());
    if report.imported >= STATISTICS_AFTER {
        state
            .bulk_step(|conn, _| Ok(db::refresh_statistics(conn)?))
            .await?;
    }
    Ok(report)
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
) -> impl Future<Output = Result<(ImportTexts, Vec<pgn::ReadGame>), ApiError>> {
    on_reading_threads(
        move || match pgn::prepare_next(&mut texts, IMPORT_BATCH, &account, now) {
            (batch, None) => Ok((texts, batch)),
            (_, Some(error)) => Err(ApiError::MalformedRequest(error.to_string())),
        },
    )
}
