//! PGN imported for study: each game read, replayed under its rules and
//! made ready off the database, then stored in steps into its importer's
//! collection.

use std::{
    collections::{HashMap, HashSet},
    io::{self, BufRead},
};

use kingpost_core::{
    Move, Start, packed,
    pgn::{
        GameLabel, GameTexts, ImportError, ImportWarning, RawGame, ReplayedGame, Shortened, replay,
    },
};

use super::tags::{SOURCE_GAME_ID, first_of_each_name, imported_tags, is_pgn_date, tags_as_stored};
use crate::{
    clock::{Millis, parse_rfc3339},
    credentials::{digest, new_id},
    db::{self, DbConnection, Portion, Yield, write_transaction},
    domain::{
        annotations::{GameNotes, notes_row},
        game::{moves::index_rows, stored_start},
        openings,
    },
    error::ApiError,
    models::{
        annotation::{self, NotesRow},
        appearances, collection,
        explorer_counts::{self, Tally},
        game::{self, GameRow, GameStatus, Termination},
        move_times,
        position_index::{self, PositionRow},
    },
    stored::{AccountId, CollectionId, GameId},
    views::StartSpec,
};

/// What importing one game came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    New(GameId),
    /// The collection holds the same game (every tag, move, time and note)
    /// already, with this id.
    Duplicate(GameId),
}

/// What recognises a game imported again into its collection: the game as
/// its PGN would be written (its tags but the game's id, its start, moves
/// with their times, and notes), so that a game differing in any of them is
/// another study of it, and a game's own export read back is the game
/// again. The import key is the collection's id, then this
/// ([`row_to_store`]): never shared between collections, whose owners
/// would otherwise see each other's tags and notes, and which an explorer
/// summing them would count twice.
fn import_digest(
    tags: &[(String, String)],
    game: &ReplayedGame,
    notes: Option<&NotesRow>,
) -> String {
    // Ids name a copy, not the game: an export read back is the game again.
    let tags: Vec<&(String, String)> = tags
        .iter()
        .filter(|(name, _)| name != "GameId" && name != SOURCE_GAME_ID)
        .collect();
    let moves: Vec<(&str, Option<&str>)> = game
        .moves
        .iter()
        .map(|m| (m.uci.as_str(), m.timestamp.as_deref()))
        .collect();
    // Each part is written as JSON, so that no text in a tag or a comment
    // can make two different games read the same.
    let parts = serde_json::json!([
        game.initial.fen(),
        tags,
        moves,
        notes.map(|notes| &notes.notes),
    ]);
    digest(&parts.to_string())
}

/// An imported game ready to store: replayed, keyed, its rows made. Made
/// without the database, so that the CPU work of an import never holds a
/// connection or the writers' turn.
#[derive(Debug)]
pub struct PreparedGame {
    row: GameRow,
    positions: Vec<PositionRow>,
    notes: Option<NotesRow>,
}

/// One game of an import file as read: what names it, what the replay read
/// otherwise than written, and the game ready to store or why it cannot be.
#[derive(Debug)]
pub struct ReadGame {
    pub label: GameLabel,
    pub warnings: Vec<ImportWarning>,
    pub shortened: Option<Shortened>,
    pub game: Result<PreparedGame, ImportError>,
}

/// What became of one game of an import.
#[derive(Debug, Clone)]
pub struct GameReport {
    pub label: GameLabel,
    pub warnings: Vec<ImportWarning>,
    pub shortened: Option<Shortened>,
    pub outcome: Result<Imported, ImportError>,
}

/// Replays `raw` under its rules and makes its rows.
pub fn prepare_game(raw: &RawGame, imported_by: &AccountId, now: Millis) -> ReadGame {
    let label = raw.label();
    match replay(raw) {
        Ok(replayed) => ReadGame {
            label,
            warnings: replayed.warnings.clone(),
            shortened: replayed.shortened,
            game: Ok(rows_of(raw, &replayed, imported_by, now)),
        },
        Err(error) => ReadGame {
            label,
            warnings: if raw.windows_1252 {
                vec![ImportWarning::Windows1252]
            } else {
                Vec::new()
            },
            shortened: None,
            game: Err(error),
        },
    }
}

/// Reads and replays the next `count` games of `texts`, up to a text that
/// cannot be read: the games before it, and why it could not be, if so.
pub fn prepare_next<R: BufRead>(
    texts: &mut GameTexts<R>,
    count: usize,
    imported_by: &AccountId,
    now: Millis,
) -> (Vec<ReadGame>, Option<io::Error>) {
    let mut games = Vec::with_capacity(count);
    for text in texts.by_ref().take(count) {
        match text {
            Ok(text) => games.push(prepare_game(&text.read(), imported_by, now)),
            Err(error) => return (games, Some(error)),
        }
    }
    (games, None)
}

fn rows_of(
    raw: &RawGame,
    replayed: &ReplayedGame,
    imported_by: &AccountId,
    now: Millis,
) -> PreparedGame {
    let id: GameId = new_id().into();
    let notes = GameNotes::of_replay(replayed).map(|notes| notes_row(&id, &notes));
    let spec = spec_of(replayed);
    let (kind, number, fen) = stored_start(&spec);
    let written = tags_as_stored(&raw.tags, replayed);
    let tags = serde_json::to_string(&written).expect("tags serialise");
    let mut row = GameRow {
        id,
        rules: replayed.rules.into(),
        start_kind: kind,
        start_number: number,
        initial_fen: fen.unwrap_or_else(|| replayed.initial.fen()),
        initial_key: replayed.initial.repetition_key() as i64,
        current_fen: replayed.position.fen(),
        ply: i32::try_from(replayed.moves.len()).unwrap_or(i32::MAX),
        status: GameStatus::Imported.to_owned(),
        result: Some(
            replayed
                .result
                .parse()
                .expect("a replay gives one of the four results"),
        ),
        termination: replayed.outcome.map(Termination::from),
        white_id: None,
        black_id: None,
        white_name: raw.tag("White").unwrap_or("?").to_owned(),
        black_name: raw.tag("Black").unwrap_or("?").to_owned(),
        to_move_id: None,
        days_per_move: 0,
        deadline_at: None,
        created_at: now,
        updated_at: now,
        imported_by: Some(imported_by.clone()),
        import_key: None,
        source_tags: Some(tags),
        turn_started_at: now,
        draw_offer_by: None,
        warned_ply: None,
        eco: None,
        opening: None,
        // A date without its year is no day a search can place.
        played_on: raw
            .tag("Date")
            .filter(|date| is_pgn_date(date) && !date.starts_with('?'))
            .map(str::to_owned),
        rated: false,
        clock: None,
        waiting_bank: None,
        holds_conditionals: false,
        tagged_eco: written_tag(raw, "ECO"),
        tagged_opening: written_tag(raw, "Opening"),
        white_surname: None,
        white_first: None,
        black_surname: None,
        black_first: None,
        moves: packed::empty(),
        move_times: None,
        recent_keys: None,
        vacation_allowed: true,
    }
    .with_name_keys();
    let keys = replayed.moves.iter().map(|m| m.position_key);
    let opening = openings::of_game(replayed.rules, replayed.initial.repetition_key(), keys);
    openings::record(&mut row, opening);
    let source = first_of_each_name(written);
    let plies = replayed.moves.len();
    let (rules, start, initial) = (replayed.rules, &replayed.start, &replayed.initial);
    let tags = imported_tags(
        &row,
        &source,
        rules,
        start,
        initial,
        &replayed.result,
        plies,
    );
    row.import_key = Some(import_digest(&tags, replayed, notes.as_ref()));
    let played: Vec<Move> = replayed.moves.iter().map(|m| m.played).collect();
    row.moves = packed::pack(&replayed.initial, &played).expect("a replay plays legal moves");
    let times: Vec<Option<i64>> = replayed
        .moves
        .iter()
        .map(|m| m.timestamp.as_deref().and_then(parse_rfc3339))
        .collect();
    row.move_times = move_times::pack(&times);
    let keys: Vec<i64> = std::iter::once(row.initial_key)
        .chain(replayed.moves.iter().map(|m| m.position_key as i64))
        .collect();
    let numbers = packed::numbers(&row.moves).expect("packed just now");
    let positions = index_rows(&row.id, &keys, &numbers);
    PreparedGame {
        row,
        positions,
        notes,
    }
}

/// The first tag `name` of `raw`, trimmed, unless blank or `?`.
fn written_tag(raw: &RawGame, name: &str) -> Option<String> {
    raw.tag(name)
        .map(str::trim)
        .filter(|value| !value.is_empty() && *value != "?")
        .map(str::to_owned)
}

/// The row `game` is stored as in the collection `into`, the `n`th time
/// its game appears in the file: the same game again in one file is filed
/// again, as a game of its own, the key saying which time it appears.
fn row_to_store(game: &PreparedGame, into: &CollectionId, n: usize) -> GameRow {
    let mut row = game.row.clone();
    row.import_key = row.import_key.map(|digest| match n {
        1 => format!("{into}:{digest}"),
        _ => format!("{into}:{digest}#{n}"),
    });
    row
}

/// Stores prepared games, each unless the same game was stored before
/// (then found): their rows in one statement a few hundred, their notes
/// likewise, their positions in the index's order. An import racing an
/// identical one (another request, another instance) finds the other's
/// game once it is stored and counts this one a duplicate. Runs in the
/// caller's transaction, which a failure must roll back.
fn store_games(
    conn: &mut DbConnection,
    games: &[&PreparedGame],
    into: &CollectionId,
    seen: &mut Occurrences,
) -> Result<Vec<Imported>, ApiError> {
    let keys: Vec<&str> = games
        .iter()
        .map(|game| game.row.import_key.as_deref().unwrap_or_default())
        .collect();
    let rows: Vec<GameRow> = games
        .iter()
        .zip(seen.count_all(conn, &keys)?)
        .map(|(game, n)| row_to_store(game, into, n))
        .collect();
    let inserted: HashSet<GameId> = game::insert_all_unless_imported(conn, &rows)?
        .into_iter()
        .collect();
    let clashed: Vec<&str> = rows
        .iter()
        .filter(|row| !inserted.contains(&row.id))
        .filter_map(|row| row.import_key.as_deref())
        .collect();
    let found: HashMap<String, GameId> = game::find_by_import_keys(conn, &clashed)?
        .into_iter()
        .collect();
    let notes: Vec<NotesRow> = games
        .iter()
        .filter(|game| inserted.contains(&game.row.id))
        .filter_map(|game| game.notes.clone())
        .collect();
    annotation::insert_all_notes(conn, &notes)?;
    rows.iter()
        .map(|row| {
            if inserted.contains(&row.id) {
                return Ok(Imported::New(row.id.clone()));
            }
            let key = row.import_key.as_deref().unwrap_or_default();
            found
                .get(key)
                .cloned()
                .map(Imported::Duplicate)
                .ok_or_else(|| ApiError::Internal(format!("import key {key} clashed and vanished")))
        })
        .collect()
}

/// Adds the positions imports staged to the position index, and the
/// counts they staged to the explorer's, in one transaction: at the end of
/// a CLI import, or when a server starts after an import that stopped
/// before its end. How many positions.
pub fn index_staged(conn: &mut DbConnection) -> Result<usize, ApiError> {
    if !position_index::any_staged(conn)? && !explorer_counts::any_staged(conn)? {
        return Ok(0);
    }
    db::sorting_on_disk(conn, |conn| {
        write_transaction(conn, |conn| {
            let indexed = position_index::merge_staged(conn, Portion::All)?;
            explorer_counts::merge_staged(conn, Portion::All)?;
            Ok::<_, diesel::result::Error>(indexed.rows)
        })
        .map_err(ApiError::from)
    })
}

/// Staged rows a step of [`index_staged_in_steps`] merges between two
/// looks at the writers waiting: a few milliseconds of SQLite's work.
const MERGED_AT_ONCE: i64 = 50;

/// One step of adding what imports staged to the index and the counts,
/// in a transaction of its own: on SQLite a portion at a time until a
/// request waits for the writers' turn, on Postgres all of it. Whether
/// nothing is left staged: an HTTP import's end, which then answers with
/// its games found by position.
pub fn index_staged_in_steps(
    conn: &mut DbConnection,
    yielding: &dyn Yield,
) -> Result<bool, ApiError> {
    write_transaction(conn, |conn| {
        let portion = Portion::First(MERGED_AT_ONCE);
        loop {
            let positions = position_index::merge_staged(conn, portion)?;
            let counts = explorer_counts::merge_staged(conn, portion)?;
            if !positions.more && !counts.more {
                return Ok(true);
            }
            if yielding.now() {
                return Ok(false);
            }
        }
    })
}

/// Games stored in one step of a batch: between two, the batch may end to
/// give the writers' turn to a request that waits for it.
const STORED_AT_ONCE: usize = 5;

/// How many times each game (by a hash of its import key) has appeared so
/// far in the file being imported: in memory for an HTTP import (10,000
/// games at most), in a temporary table of the connection for the CLI's,
/// whatever the file's size. Two games whose keys share a hash count as
/// one: the later is stored under another key, never lost.
#[derive(Debug)]
pub enum Occurrences {
    InMemory(HashMap<i64, usize>),
    InDatabase,
}

impl Default for Occurrences {
    fn default() -> Occurrences {
        Occurrences::InMemory(HashMap::new())
    }
}

impl Occurrences {
    /// Counted in a temporary table of `conn`, which this makes.
    pub fn in_database(conn: &mut DbConnection) -> Result<Occurrences, ApiError> {
        appearances::create(conn)?;
        Ok(Occurrences::InDatabase)
    }

    /// Counts one more appearance of each game of `keys`, in order: which
    /// time each is.
    fn count_all(
        &mut self,
        conn: &mut DbConnection,
        keys: &[&str],
    ) -> Result<Vec<usize>, ApiError> {
        let hashes: Vec<i64> = keys.iter().map(|key| hash_of(key)).collect();
        match self {
            Occurrences::InMemory(seen) => Ok(hashes
                .iter()
                .map(|hash| {
                    let n = seen.entry(*hash).or_default();
                    *n += 1;
                    *n
                })
                .collect()),
            Occurrences::InDatabase => {
                let mut here: HashMap<i64, i64> = HashMap::new();
                for hash in &hashes {
                    *here.entry(*hash).or_default() += 1;
                }
                let counts: Vec<(i64, i64)> = here.iter().map(|(k, n)| (*k, *n)).collect();
                let mut before: HashMap<i64, i64> = appearances::add(conn, &counts)?
                    .into_iter()
                    .map(|(key, total)| (key, total - here[&key]))
                    .collect();
                Ok(hashes
                    .iter()
                    .map(|hash| {
                        let n = before.entry(*hash).or_default();
                        *n += 1;
                        usize::try_from(*n).unwrap_or(usize::MAX)
                    })
                    .collect())
            }
        }
    }
}

/// A game's import key hashed, as [`Occurrences`] counts it for one file.
fn hash_of(key: &str) -> i64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish() as i64
}

/// Stores read games (or keeps the errors that refused them) in one write
/// transaction, in order, filing each stored game (new or found again) in
/// the collection `into`: all of them, or, when `yielding` says so after a
/// game, those before it (at least one). Their positions and explorer
/// counts are staged, for [`index_staged`] or [`index_staged_in_steps`] to
/// add. Their reports; the caller goes on from the first game not
/// reported.
pub fn store_batch(
    conn: &mut DbConnection,
    games: &[ReadGame],
    into: &CollectionId,
    seen: &mut Occurrences,
    yielding: &dyn Yield,
) -> Result<Vec<GameReport>, ApiError> {
    write_transaction(conn, |conn| {
        let mut reports = Vec::with_capacity(games.len());
        for chunk in games.chunks(STORED_AT_ONCE) {
            if !reports.is_empty() && yielding.now() {
                break;
            }
            let prepared: Vec<&PreparedGame> = chunk
                .iter()
                .filter_map(|read| read.game.as_ref().ok())
                .collect();
            let mut stored = store_games(conn, &prepared, into, seen)?.into_iter();
            let mut positions: Vec<PositionRow> = Vec::new();
            let mut counts = Tally::default();
            for read in chunk {
                let outcome = match &read.game {
                    Ok(game) => {
                        let imported = stored.next().expect("an outcome for each game stored");
                        if matches!(imported, Imported::New(_)) {
                            positions.extend_from_slice(&game.positions);
                            let (rules, result) = (game.row.rules, game.row.result);
                            counts.add_game(into.as_str(), rules, result, &game.positions);
                        }
                        Ok(imported)
                    }
                    Err(error) => Err(error.clone()),
                };
                reports.push(GameReport {
                    label: read.label.clone(),
                    warnings: read.warnings.clone(),
                    shortened: read.shortened,
                    outcome,
                });
            }
            position_index::stage(conn, &positions)?;
            explorer_counts::stage(conn, &counts.rows())?;
        }
        let stored: Vec<&GameId> = reports
            .iter()
            .filter_map(|report| match &report.outcome {
                Ok(Imported::New(id) | Imported::Duplicate(id)) => Some(id),
                Err(_) => None,
            })
            .collect();
        collection::file(conn, into, &stored)?;
        Ok(reports)
    })
}

/// The start a replayed game is stored with.
fn spec_of(game: &ReplayedGame) -> StartSpec {
    match &game.start {
        Start::Standard => StartSpec::Standard {},
        Start::Chess960(n) => StartSpec::Chess960 { id: Some(*n) },
        Start::Shuffle(n) => StartSpec::Shuffle { id: Some(*n) },
        Start::Prechess => StartSpec::Prechess {},
        Start::Fen(_) => StartSpec::Fen {
            fen: game.initial.fen(),
        },
    }
}
