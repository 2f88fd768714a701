//! Games as PGN: one game, archives a page at a time (so that an archive is
//! streamed, never built whole), and PGN imported for study.

use std::{
    collections::HashMap,
    io::{self, BufRead},
};

use arrayvec::ArrayString;
use kingpost_core::{
    Position, Rules, Start,
    pgn::{
        GameLabel, GameTexts, ImportError, ImportWarning, PgnMove, RawGame, ReplayedGame,
        Shortened, replay, rules_for_variant, rules_tags, write_game,
    },
};

use crate::{
    clock::{DAY, Millis, SECOND, parse_rfc3339, pgn_date, rfc3339},
    credentials::{digest, new_id},
    db::{DbConnection, Yield, write_transaction},
    domain::{
        annotations::{self, GameNotes, notes_row},
        game::{clock, core_start, corrupt, readable_game, start_of, stored_start, variant_name},
        openings, ratings,
    },
    error::ApiError,
    models::{
        annotation::{self, NotesRow},
        collection,
        game::{self, GameResult, GameRow, GameStatus, MoveRow, Termination},
        tournament,
    },
    stored::{AccountId, CollectionId, GameId},
    views::{ArchivedGame, ClockSpec, GamePlayerView, GameRatings, MoveView, StartSpec},
};

/// `2026.11.30` and `12:00:00` of a time, as PGN dates and times are written.
fn pgn_date_time(at: Millis) -> (String, String) {
    (pgn_date(at), rfc3339(at)[11..19].to_owned())
}

/// Whether `text` is a date as the PGN standard writes one: `YYYY.MM.DD`,
/// each part digits or all `?`.
fn is_pgn_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    let part = |text: &str, len: usize| {
        text.len() == len
            && (text.bytes().all(|b| b.is_ascii_digit()) || text.bytes().all(|b| b == b'?'))
    };
    matches!(parts.as_slice(), [y, m, d] if part(y, 4) && part(m, 2) && part(d, 2))
}

/// The `{[%ts ...]}` time of a move: RFC 3339 to the second. Its digits are
/// written in place, with no string or format of its own: an archive writes
/// one for each of millions of moves. A time RFC 3339 cannot write (before
/// the year 0 or after 9999) is written as the epoch.
fn move_time(at: Millis) -> ArrayString<20> {
    let time = time::OffsetDateTime::from_unix_timestamp(at.div_euclid(1000))
        .ok()
        .filter(|time| (0..=9999).contains(&time.year()))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let mut text = *b"0000-00-00T00:00:00Z";
    let fields = [
        (0..4, time.year().unsigned_abs()),
        (5..7, u32::from(u8::from(time.month()))),
        (8..10, u32::from(time.day())),
        (11..13, u32::from(time.hour())),
        (14..16, u32::from(time.minute())),
        (17..19, u32::from(time.second())),
    ];
    for (digits, mut value) in fields {
        for digit in text[digits].iter_mut().rev() {
            *digit = b'0' + (value % 10) as u8;
            value /= 10;
        }
    }
    ArrayString::from_byte_string(&text).expect("digits and separators are ASCII")
}

/// The PGN standard's `Termination` of a played game; the precise reason
/// goes in `TerminationReason`.
fn termination_tag(row: &GameRow) -> &'static str {
    match row.termination {
        None => "unterminated",
        Some(Termination::Timeout) => "time forfeit",
        Some(Termination::Aborted) => "abandoned",
        Some(_) => "normal",
    }
}

/// The seven-tag roster, in the PGN standard's order.
const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Tags kingpost writes itself, from the game as replayed, whatever the
/// source said.
const COMPUTED: [&str; 6] = [
    "Variant",
    "SetUp",
    "FEN",
    "StartPosition",
    "PlyCount",
    "Result",
];

/// The tags of an imported game's source, the first of each name only.
fn source_tags(row: &GameRow) -> Result<Vec<(String, String)>, ApiError> {
    let Some(json) = &row.source_tags else {
        return Ok(Vec::new());
    };
    let tags: Vec<(String, String)> = serde_json::from_str(json).map_err(|e| corrupt(row, e))?;
    Ok(first_of_each_name(tags))
}

fn first_of_each_name(mut tags: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    tags.retain(|(name, _)| seen.insert(name.clone()));
    tags
}

/// A tournament game's place in its tournament, for its tags.
#[derive(Debug, Clone)]
pub struct TournamentRound {
    pub event: String,
    pub round: i32,
    pub board: i32,
}

/// What the tags of played games say beside their rows, read for a batch
/// of games with one query each: the ratings of rated games, the rounds of
/// tournament games.
#[derive(Debug, Default)]
pub struct PlayedContext {
    ratings: HashMap<GameId, GameRatings>,
    rounds: HashMap<GameId, TournamentRound>,
}

impl PlayedContext {
    pub fn read(conn: &mut DbConnection, rows: &[&GameRow]) -> Result<PlayedContext, ApiError> {
        let played: Vec<&GameId> = rows
            .iter()
            .filter(|r| r.status != GameStatus::Imported)
            .map(|r| &r.id)
            .collect();
        let rounds = if played.is_empty() {
            HashMap::new()
        } else {
            tournament::rounds_of_games(conn, &played)?
                .into_iter()
                .map(|(id, event, round, board)| {
                    (
                        id,
                        TournamentRound {
                            event,
                            round,
                            board,
                        },
                    )
                })
                .collect()
        };
        Ok(PlayedContext {
            ratings: ratings::of_games(conn, rows)?,
            rounds,
        })
    }
}

/// Appends the PGN of `row`, whose moves are `moves` and annotations
/// `notes`, with what `context` knows of it, to `out`.
pub fn write_pgn(
    out: &mut String,
    row: &GameRow,
    moves: &[MoveRow],
    notes: Option<&GameNotes>,
    context: &PlayedContext,
) -> Result<(), ApiError> {
    let rules = row.rules.0;
    let start = core_start(&start_of(row));
    let initial = Position::from_start(rules, &start).map_err(|e| corrupt(row, e))?;
    let result = row.result.map_or("*", GameResult::key);
    let tags = if row.status == GameStatus::Imported {
        let source = source_tags(row)?;
        imported_tags(row, &source, rules, &start, &initial, result, moves.len())
    } else {
        let time_control = time_control(clock::of_row(row)?.as_ref());
        let said = Said {
            ratings: context.ratings.get(&row.id),
            round: context.rounds.get(&row.id),
            time_control,
        };
        played_tags(row, &start, &initial, result, moves.len(), said)
    };
    let times: Vec<Option<ArrayString<20>>> =
        moves.iter().map(|m| m.played_at.map(move_time)).collect();
    let pgn_moves: Vec<PgnMove<'_>> = (1..)
        .zip(moves.iter().zip(&times))
        .map(|(ply, (m, time))| PgnMove {
            san: &m.san,
            timestamp: time.as_deref(),
            notes: notes.and_then(|n| n.of_ply(ply)),
        })
        .collect();
    let comment = notes.and_then(|n| n.comment.as_deref());
    write_game(out, &tags, &initial, comment, &pgn_moves, result);
    Ok(())
}

/// What a played game's tags say beside its row.
struct Said<'a> {
    ratings: Option<&'a GameRatings>,
    round: Option<&'a TournamentRound>,
    time_control: String,
}

/// The tags of a game played here.
fn played_tags(
    row: &GameRow,
    start: &Start,
    initial: &Position,
    result: &str,
    plies: usize,
    said: Said<'_>,
) -> Vec<(String, String)> {
    let rules = row.rules.0;
    let (date, time) = pgn_date_time(row.created_at);
    let event = match (said.round, row.rated) {
        (Some(round), _) => round.event.clone(),
        (None, true) => "kingpost rated correspondence game".to_owned(),
        (None, false) => "kingpost correspondence game".to_owned(),
    };
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", event),
        ("Site", "kingpost".to_owned()),
        ("Date", date.clone()),
        (
            "Round",
            said.round.map_or("-".to_owned(), |r| r.round.to_string()),
        ),
        ("White", row.white_name.clone()),
        ("Black", row.black_name.clone()),
        ("Result", result.to_owned()),
    ];
    if let Some(round) = said.round {
        tags.push(("Board", round.board.to_string()));
    }
    if let Some(ratings) = said.ratings {
        tags.push(("WhiteElo", ratings.white.rating.to_string()));
        tags.push(("BlackElo", ratings.black.rating.to_string()));
        // lichess's tags for what the game did to the ratings.
        if let (Some(white), Some(black)) = (ratings.white.change, ratings.black.change) {
            tags.push(("WhiteRatingDiff", format!("{white:+}")));
            tags.push(("BlackRatingDiff", format!("{black:+}")));
        }
    }
    tags.extend(rules_tags(rules, start, initial, false));
    if let Some(opening) = openings::of_row(row) {
        tags.push(("ECO", opening.eco));
        tags.push(("Opening", opening.name));
    }
    tags.push(("TimeControl", said.time_control));
    if row.clock.is_none() {
        tags.push(("CorrespondenceDaysPerMove", row.days_per_move.to_string()));
    }
    tags.push(("UTCDate", date));
    tags.push(("UTCTime", time));
    tags.push(("Termination", termination_tag(row).to_owned()));
    tags.extend(
        row.termination
            .map(|reason| ("TerminationReason", reason.key().to_owned())),
    );
    tags.push(("PlyCount", plies.to_string()));
    tags.push(("GameId", row.id.to_string()));
    tags.into_iter().map(|(n, v)| (n.to_owned(), v)).collect()
}

/// The PGN standard's `TimeControl` (section 9.6.1, in seconds): `-` for
/// days per move, which it cannot say (the `CorrespondenceDaysPerMove` tag
/// does); `moves/seconds` for a control; `seconds+increment` for a bank
/// (its cap it cannot say either).
fn time_control(spec: Option<&ClockSpec>) -> String {
    const DAY_SECONDS: i64 = DAY / SECOND;
    match spec {
        None => "-".to_owned(),
        Some(&ClockSpec::Control { moves, days }) => {
            format!("{moves}/{}", i64::from(days) * DAY_SECONDS)
        }
        Some(&ClockSpec::Bank {
            initial_days,
            increment_days,
            ..
        }) => format!(
            "{}+{}",
            i64::from(initial_days) * DAY_SECONDS,
            i64::from(increment_days) * DAY_SECONDS
        ),
    }
}

/// The tags of an imported game: its source's (`source`, the first of each
/// name), in the source's order after the seven-tag roster, with the rules,
/// start and move count as replayed.
fn imported_tags(
    row: &GameRow,
    source: &[(String, String)],
    rules: Rules,
    start: &Start,
    initial: &Position,
    result: &str,
    plies: usize,
) -> Vec<(String, String)> {
    let from_source = |name: &str| {
        source
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let chess960 = from_source("Variant")
        .and_then(|variant| rules_for_variant(Some(&variant)).ok())
        .is_some_and(|(_, chess960)| chess960);
    let mut tags: Vec<(String, String)> = ROSTER
        .iter()
        .map(|&name| {
            let value = match name {
                "White" => row.white_name.clone(),
                "Black" => row.black_name.clone(),
                "Result" => result.to_owned(),
                "Date" => from_source(name).unwrap_or_else(|| "????.??.??".to_owned()),
                _ => from_source(name).unwrap_or_else(|| "?".to_owned()),
            };
            (name.to_owned(), value)
        })
        .collect();
    tags.extend(
        rules_tags(rules, start, initial, chess960)
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v)),
    );
    tags.extend(
        source
            .iter()
            .filter(|(name, _)| {
                !ROSTER.contains(&name.as_str()) && !COMPUTED.contains(&name.as_str())
            })
            .cloned(),
    );
    // The source's own names win: the tables may name a line otherwise.
    if let Some(opening) = openings::of_row(row).filter(|_| from_source("ECO").is_none()) {
        tags.push(("ECO".to_owned(), opening.eco));
        if from_source("Opening").is_none() {
            tags.push(("Opening".to_owned(), opening.name));
        }
    }
    if from_source("TerminationReason").is_none() {
        tags.extend(
            row.termination
                .map(|reason| ("TerminationReason".to_owned(), reason.key().to_owned())),
        );
    }
    tags.push(("PlyCount".to_owned(), plies.to_string()));
    if from_source("GameId").is_none() {
        tags.push(("GameId".to_owned(), row.id.to_string()));
    }
    tags
}

/// The PGN of one game `reader` may read.
pub fn game_pgn(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    game_id: &GameId,
) -> Result<String, ApiError> {
    let row = readable_game(conn, reader, game_id)?;
    let moves = game::moves_of(conn, game_id)?;
    let notes = annotations::for_pgn(conn, &[game_id])?;
    let context = PlayedContext::read(conn, &[&row])?;
    let mut out = String::new();
    write_pgn(&mut out, &row, &moves, notes.get(game_id), &context)?;
    Ok(out)
}

/// The PGN of stored games, in the order given, their moves and
/// annotations read with one query each.
pub fn pgn_of_rows(conn: &mut DbConnection, rows: &[GameRow]) -> Result<String, ApiError> {
    let ids: Vec<&GameId> = rows.iter().map(|row| &row.id).collect();
    let mut moves = game::moves_by_game(conn, &ids)?;
    let notes = annotations::for_pgn(conn, &ids)?;
    let context = PlayedContext::read(conn, &rows.iter().collect::<Vec<_>>())?;
    let mut out = String::new();
    for row in rows {
        let played = moves.remove(&row.id).unwrap_or_default();
        write_pgn(&mut out, row, &played, notes.get(&row.id), &context)?;
    }
    Ok(out)
}

/// A game with its moves, as an archive line shows it.
pub fn archived(row: GameRow, moves: Vec<MoveRow>) -> Result<ArchivedGame, ApiError> {
    let rules = row.rules.0;
    let start = start_of(&row);
    let player = |name: &str| GamePlayerView {
        username: name.to_owned(),
        on_vacation: false,
    };
    Ok(ArchivedGame {
        variant: variant_name(rules, &start).to_owned(),
        opening: openings::of_row(&row),
        start,
        white: player(&row.white_name),
        black: player(&row.black_name),
        status: row.status,
        moves: moves.into_iter().map(MoveView::from).collect(),
        created_at: rfc3339(row.created_at),
        id: row.id.into(),
        rules: row.rules,
        result: row.result,
        termination: row.termination,
        initial_fen: row.initial_fen,
        fen: row.current_fen,
        days_per_move: row.days_per_move,
    })
}

/// How an archive is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    Pgn,
    Ndjson,
}

/// Where an archive goes on: the creation time and id of the last game sent.
pub type Cursor = (i64, String);

/// One page of an archive as read, to be written by [`write_archive`]:
/// the games, their moves, notes and context, and the cursor after them.
#[derive(Debug)]
pub struct ArchiveRows {
    rows: Vec<GameRow>,
    moves_by_game: HashMap<GameId, Vec<MoveRow>>,
    notes: HashMap<GameId, GameNotes>,
    context: PlayedContext,
    format: ArchiveFormat,
    /// The cursor after the page: known once it is read, so that the next
    /// page can be read while this one is written.
    pub next: Option<Cursor>,
}

impl ArchiveRows {
    /// How many games the page holds.
    pub fn count(&self) -> usize {
        self.rows.len()
    }
}

/// Reads one page of an archive, after `after`.
pub fn read_archive(
    conn: &mut DbConnection,
    filter: &game::ArchiveFilter,
    after: Option<Cursor>,
    limit: i64,
    format: ArchiveFormat,
) -> Result<ArchiveRows, ApiError> {
    let rows = game::archive_page(conn, filter, after, limit)?;
    let ids: Vec<&GameId> = rows.iter().map(|r| &r.id).collect();
    let moves_by_game = game::moves_by_game(conn, &ids)?;
    let (notes, context) = match format {
        ArchiveFormat::Pgn => (
            annotations::for_pgn(conn, &ids)?,
            PlayedContext::read(conn, &rows.iter().collect::<Vec<_>>())?,
        ),
        ArchiveFormat::Ndjson => Default::default(),
    };
    let next = rows
        .last()
        .map(|last| (last.created_at, last.id.to_string()));
    Ok(ArchiveRows {
        rows,
        moves_by_game,
        notes,
        context,
        format,
        next,
    })
}

/// About what a game's tags take in PGN, and a move with its number and
/// time: a page's text is sized from them.
const BYTES_OF_TAGS: usize = 640;
const BYTES_A_PLY: usize = 36;

/// Writes a page read by [`read_archive`]: no database needed.
pub fn write_archive(page: ArchiveRows) -> Result<String, ApiError> {
    let ArchiveRows {
        rows,
        mut moves_by_game,
        notes,
        context,
        format,
        ..
    } = page;
    // Sized for the page once: grown by doubling, the page's text was
    // copied about as many times again as it is long.
    let plies: usize = moves_by_game.values().map(Vec::len).sum();
    let mut out = String::with_capacity(rows.len() * BYTES_OF_TAGS + plies * BYTES_A_PLY);
    for row in rows {
        let moves = moves_by_game.remove(&row.id).unwrap_or_default();
        match format {
            ArchiveFormat::Pgn => write_pgn(&mut out, &row, &moves, notes.get(&row.id), &context)?,
            ArchiveFormat::Ndjson => {
                let line = serde_json::to_string(&archived(row, moves)?)
                    .map_err(|e| ApiError::Internal(e.to_string()))?;
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// What importing one game came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    New(GameId),
    /// The importer stored the same game (every tag, move, time and note)
    /// before, with this id.
    Duplicate(GameId),
}

/// The key that recognises a game its importer imports again: the importer,
/// then the game as its PGN would be written (its tags but the game's id,
/// its start, moves with their times, and notes), so that a game differing
/// in any of them is another study of it, and a game's own export read
/// back is the game again. Never shared between accounts: a key that
/// matched another's game would tell one account that another holds it,
/// and file that account's tags and notes under this one's name.
fn import_key(
    owner: &AccountId,
    tags: &[(String, String)],
    game: &ReplayedGame,
    notes: Option<&NotesRow>,
) -> String {
    let tags: Vec<&(String, String)> = tags.iter().filter(|(name, _)| name != "GameId").collect();
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
    format!("{owner}:{}", digest(&parts.to_string()))
}

/// An imported game ready to store: replayed, keyed, its rows made. Made
/// without the database, so that the CPU work of an import never holds a
/// connection or the writers' turn.
#[derive(Debug)]
pub struct PreparedGame {
    row: GameRow,
    moves: Vec<MoveRow>,
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
    let tags = serde_json::to_string(&raw.tags).expect("tags serialise");
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
        played_on: raw
            .tag("Date")
            .filter(|date| is_pgn_date(date))
            .map(str::to_owned),
        rated: false,
        clock: None,
        waiting_bank: None,
        holds_conditionals: false,
    };
    let keys = replayed.moves.iter().map(|m| m.position_key);
    let opening = openings::of_game(replayed.rules, replayed.initial.repetition_key(), keys);
    openings::record(&mut row, opening);
    let source = first_of_each_name(raw.tags.clone());
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
    row.import_key = Some(import_key(imported_by, &tags, replayed, notes.as_ref()));
    let moves: Vec<MoveRow> = replayed
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| MoveRow {
            game_id: row.id.clone(),
            ply: i32::try_from(i + 1).unwrap_or(i32::MAX),
            uci: m.uci.clone(),
            san: m.san.clone(),
            position_key: m.position_key as i64,
            played_at: m.timestamp.as_deref().and_then(parse_rfc3339),
        })
        .collect();
    PreparedGame { row, moves, notes }
}

/// Stores a prepared game, or finds the same game stored before. An import
/// racing an identical one (another request, another instance) finds the
/// other's game once it is stored and counts this one a duplicate. Runs in
/// the caller's transaction, which a failure must roll back (it may leave
/// part of the game).
fn store_game(conn: &mut DbConnection, game: &PreparedGame) -> Result<Imported, ApiError> {
    if !game::insert_unless_imported(conn, &game.row)? {
        let key = game.row.import_key.as_deref().unwrap_or_default();
        return game::find_by_import_key(conn, key)?
            .map(Imported::Duplicate)
            .ok_or_else(|| ApiError::Internal(format!("import key {key} clashed and vanished")));
    }
    game::insert_moves(conn, &game.moves)?;
    if let Some(notes) = &game.notes {
        annotation::insert_notes(conn, notes)?;
    }
    Ok(Imported::New(game.row.id.clone()))
}

/// Stores read games (or keeps the errors that refused them) in one write
/// transaction, in order, filing each stored game (new or found again) in
/// the collection `into`: all of them, or, when `yielding` says so after a
/// game, those before it (at least one). Their reports; the caller goes on
/// from the first game not reported.
pub fn store_batch(
    conn: &mut DbConnection,
    games: &[ReadGame],
    into: &CollectionId,
    yielding: &dyn Yield,
) -> Result<Vec<GameReport>, ApiError> {
    write_transaction(conn, |conn| {
        let mut reports = Vec::with_capacity(games.len());
        for read in games {
            if !reports.is_empty() && yielding.now() {
                break;
            }
            let outcome = match &read.game {
                Ok(game) => Ok(store_game(conn, game)?),
                Err(error) => Err(error.clone()),
            };
            reports.push(GameReport {
                label: read.label.clone(),
                warnings: read.warnings.clone(),
                shortened: read.shortened,
                outcome,
            });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_times_are_rfc3339_to_the_second() {
        for at in [
            0,
            999,
            -1,
            -1001,
            951_782_400_123,
            1_796_040_000_000,
            4_102_444_799_999,
        ] {
            let full = rfc3339(at);
            assert_eq!(
                move_time(at).as_str(),
                format!("{}Z", &full[..19]),
                "{at} ms"
            );
        }
        assert_eq!(move_time(951_782_400_123).as_str(), "2000-02-29T00:00:00Z");
        // The first second of the year 10000, and one before the year 0.
        for beyond in [253_402_300_800_000, -62_167_219_201_000] {
            assert_eq!(move_time(beyond).as_str(), "1970-01-01T00:00:00Z");
        }
    }
}
