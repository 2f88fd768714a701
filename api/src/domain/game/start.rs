//! Starting a game: the start a row records, and the row of a new game.

use kingpost_core::{Position, Rules, Start, packed};

use crate::{
    clock::{DAY, Millis, pgn_date},
    error::{ApiError, Code},
    models::game::{GameRow, GameStatus, StartKind},
    stored::{AccountId, GameId},
    views::StartSpec,
};

use super::loaded::end_in;

/// The start a game row records.
pub fn start_of(row: &GameRow) -> StartSpec {
    spec_from_parts(row.start_kind, row.start_number, &row.initial_fen)
}

/// A start spec from its stored parts (the FEN is that of a `fen` start).
pub fn spec_from_parts(kind: StartKind, number: Option<i32>, fen: &str) -> StartSpec {
    let id = number.and_then(|n| u16::try_from(n).ok());
    match kind {
        StartKind::Standard => StartSpec::Standard {},
        StartKind::Chess960 => StartSpec::Chess960 { id },
        StartKind::Shuffle => StartSpec::Shuffle { id },
        StartKind::Prechess => StartSpec::Prechess {},
        StartKind::Fen => StartSpec::Fen {
            fen: fen.to_owned(),
        },
    }
}

/// The core's start for a resolved spec (numbers drawn already).
pub fn core_start(spec: &StartSpec) -> Start {
    match spec {
        StartSpec::Standard {} => Start::Standard,
        StartSpec::Chess960 { id } => Start::Chess960(id.unwrap_or(kingpost_core::USUAL_ARRAY)),
        StartSpec::Shuffle { id } => Start::Shuffle(id.unwrap_or(kingpost_core::USUAL_ARRAY)),
        StartSpec::Prechess {} => Start::Prechess,
        StartSpec::Fen { fen } => Start::Fen(fen.clone()),
    }
}

/// The parts a start is stored as: kind, number, FEN of a `fen` start.
pub fn stored_start(start: &StartSpec) -> (StartKind, Option<i32>, Option<String>) {
    match start {
        StartSpec::Standard {} => (StartKind::Standard, None, None),
        StartSpec::Chess960 { id } => (StartKind::Chess960, id.map(i32::from), None),
        StartSpec::Shuffle { id } => (StartKind::Shuffle, id.map(i32::from), None),
        StartSpec::Prechess {} => (StartKind::Prechess, None, None),
        StartSpec::Fen { fen } => (StartKind::Fen, None, Some(fen.clone())),
    }
}

/// The PGN `Variant` name of a rule set played from `start`.
pub fn variant_name(rules: Rules, start: &StartSpec) -> &'static str {
    rules.pgn_name(matches!(start, StartSpec::Chess960 { .. }))
}

/// The error for a stored game the code cannot read.
pub(crate) fn corrupt(row: &GameRow, what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("game {}: {what}", row.id))
}

/// The current position of a stored game, with the castling notation its
/// start decides.
pub fn position_of(row: &GameRow) -> Result<Position, ApiError> {
    let rules = row.rules.0;
    let initial =
        Position::from_start(rules, &core_start(&start_of(row))).map_err(|e| corrupt(row, e))?;
    Position::from_fen(rules, &row.current_fen)
        .map(|pos| pos.with_castling_notation(initial.castling_notation()))
        .map_err(|e| corrupt(row, e))
}

/// The two sides of a new game: account ids and names.
#[derive(Debug, Clone)]
pub struct Players {
    pub white_id: AccountId,
    pub white_name: String,
    pub black_id: AccountId,
    pub black_name: String,
}

/// A new game row from a resolved start, with the first deadline set.
pub fn new_game(
    id: GameId,
    rules: Rules,
    start: &StartSpec,
    players: Players,
    days_per_move: i32,
    now: Millis,
) -> Result<GameRow, ApiError> {
    let pos = Position::from_start(rules, &core_start(start))
        .map_err(|e| ApiError::invalid(Code::InvalidStart, e.to_string()))?;
    let (kind, number, fen) = stored_start(start);
    let mut row = GameRow {
        id,
        rules: rules.into(),
        start_kind: kind,
        start_number: number,
        initial_fen: fen.unwrap_or_else(|| pos.fen()),
        initial_key: pos.repetition_key() as i64,
        current_fen: pos.fen(),
        ply: 0,
        status: GameStatus::Started.to_owned(),
        result: None,
        termination: None,
        white_id: Some(players.white_id),
        black_id: Some(players.black_id),
        white_name: players.white_name,
        black_name: players.black_name,
        to_move_id: None,
        days_per_move,
        deadline_at: Some(now + i64::from(days_per_move) * DAY),
        created_at: now,
        updated_at: now,
        imported_by: None,
        import_key: None,
        source_tags: None,
        turn_started_at: now,
        draw_offer_by: None,
        warned_ply: None,
        eco: None,
        opening: None,
        played_on: Some(pgn_date(now)),
        rated: false,
        clock: None,
        waiting_bank: None,
        holds_conditionals: false,
        tagged_eco: None,
        tagged_opening: None,
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
    row.to_move_id = row.player(pos.turn()).cloned();
    if let Some(outcome) = pos.outcome() {
        end_in(&mut row, outcome);
    }
    Ok(row)
}
