//! Games written as PGN: one game, or an archive a page at a time.

use std::collections::HashMap;

use arrayvec::ArrayString;
use kingpost_core::{
    Position, Start,
    pgn::{PgnMove, rules_tags, write_game},
};

use super::tags::{imported_tags, source_tags};
use crate::{
    clock::{DAY, Millis, SECOND, pgn_date, rfc3339},
    db::DbConnection,
    domain::{
        annotations::{self, GameNotes},
        game::{
            clock, core_start, corrupt, moves::played_moves, readable_game, start_of, variant_name,
        },
        openings, ratings,
    },
    error::ApiError,
    models::{
        game::{self, GameResult, GameRow, GameStatus, Termination},
        tournament,
    },
    stored::{AccountId, GameId},
    views::{ArchivedGame, ClockSpec, GamePlayerView, GameRatings, MoveView, Timestamp},
};

/// `2026.11.30` and `12:00:00` of a time, as PGN dates and times are written.
fn pgn_date_time(at: Millis) -> (String, String) {
    (pgn_date(at), rfc3339(at)[11..19].to_owned())
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
        Some(Termination::Adjudication) => "adjudication",
        // The PGN standard's administrative forfeit under the event's rules.
        Some(Termination::Forfeit) => "rules infraction",
        Some(_) => "normal",
    }
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

/// Appends the PGN of `row`, whose annotations are `notes`, with what
/// `context` knows of it, to `out`.
pub fn write_pgn(
    out: &mut String,
    row: &GameRow,
    notes: Option<&GameNotes>,
    context: &PlayedContext,
) -> Result<(), ApiError> {
    let moves = played_moves(row)?;
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

/// The PGN of one game `reader` may read.
pub fn game_pgn(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    game_id: &GameId,
) -> Result<String, ApiError> {
    let row = readable_game(conn, reader, game_id)?;
    let notes = annotations::for_pgn(conn, &[game_id])?;
    let context = PlayedContext::read(conn, &[&row])?;
    let mut out = String::new();
    write_pgn(&mut out, &row, notes.get(game_id), &context)?;
    Ok(out)
}

/// The PGN of stored games, in the order given, their moves and
/// annotations read with one query each.
pub fn pgn_of_rows(conn: &mut DbConnection, rows: &[GameRow]) -> Result<String, ApiError> {
    let ids: Vec<&GameId> = rows.iter().map(|row| &row.id).collect();
    let notes = annotations::for_pgn(conn, &ids)?;
    let context = PlayedContext::read(conn, &rows.iter().collect::<Vec<_>>())?;
    let mut out = String::new();
    for row in rows {
        write_pgn(&mut out, row, notes.get(&row.id), &context)?;
    }
    Ok(out)
}

/// A game with its moves, as an archive line shows it.
pub fn archived(row: GameRow) -> Result<ArchivedGame, ApiError> {
    let moves = played_moves(&row)?;
    let rules = row.rules.0;
    let start = start_of(&row);
    // An archive's line is read from the game's row alone: its players'
    // accounts (vacations, BOTs) are not read for it.
    let player = |name: &str| GamePlayerView {
        username: name.to_owned(),
        on_vacation: false,
        bot: false,
    };
    Ok(ArchivedGame {
        variant: variant_name(rules, &start).to_owned(),
        opening: openings::of_row(&row),
        start,
        white: player(&row.white_name),
        black: player(&row.black_name),
        status: row.status,
        moves: moves.into_iter().map(MoveView::from).collect(),
        created_at: Timestamp(row.created_at),
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
        notes,
        context,
        format,
        ..
    } = page;
    // Sized for the page once: grown by doubling, the page's text was
    // copied about as many times again as it is long.
    let plies: usize = rows.iter().map(|row| row.moves.len()).sum();
    let mut out = String::with_capacity(rows.len() * BYTES_OF_TAGS + plies * BYTES_A_PLY);
    for row in rows {
        match format {
            ArchiveFormat::Pgn => write_pgn(&mut out, &row, notes.get(&row.id), &context)?,
            ArchiveFormat::Ndjson => {
                let line = serde_json::to_string(&archived(row)?)
                    .map_err(|e| ApiError::Internal(e.to_string()))?;
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    Ok(out)
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
