//! The life of a game: its position rebuilt from the row, a move applied
//! under the ply guard, and the view clients read.

use kingpost_core::{Color, DrawReason, MoveError, Outcome, Position, Rules, Start};

use crate::{
    clock::{DAY, Millis, rfc3339},
    db::{DbConnection, write_transaction},
    error::ApiError,
    models::{
        account,
        game::{self, FINISHED, GameAdvance, GameRow, MoveRow, STARTED},
    },
    views::{GameStatus, GameView, LegalMoveView, MoveView, PlayerView, Side, StartSpec},
};

/// The start a game row records.
pub fn start_of(row: &GameRow) -> StartSpec {
    spec_from_parts(&row.start_kind, row.start_number, &row.initial_fen)
}

/// A start spec from its stored parts (the FEN is that of a `fen` start).
pub fn spec_from_parts(kind: &str, number: Option<i32>, fen: &str) -> StartSpec {
    let id = number.and_then(|n| u16::try_from(n).ok());
    match kind {
        "chess960" => StartSpec::Chess960 { id },
        "shuffle" => StartSpec::Shuffle { id },
        "prechess" => StartSpec::Prechess,
        "fen" => StartSpec::Fen {
            fen: fen.to_owned(),
        },
        _ => StartSpec::Standard,
    }
}

/// The core's start for a resolved spec (numbers drawn already).
pub fn core_start(spec: &StartSpec) -> Start {
    match spec {
        StartSpec::Standard => Start::Standard,
        StartSpec::Chess960 { id } => Start::Chess960(id.unwrap_or(kingpost_core::USUAL_ARRAY)),
        StartSpec::Shuffle { id } => Start::Shuffle(id.unwrap_or(kingpost_core::USUAL_ARRAY)),
        StartSpec::Prechess => Start::Prechess,
        StartSpec::Fen { fen } => Start::Fen(fen.clone()),
    }
}

fn corrupt(row: &GameRow, what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("game {}: {what}", row.id))
}

/// The rule set and current position of a stored game, with the castling
/// notation its start decides.
pub fn position_of(row: &GameRow) -> Result<Position, ApiError> {
    let rules: Rules = row.rules.parse().map_err(|e| corrupt(row, e))?;
    let initial =
        Position::from_start(rules, &core_start(&start_of(row))).map_err(|e| corrupt(row, e))?;
    Position::from_fen(rules, &row.current_fen)
        .map(|pos| pos.with_castling_notation(initial.castling_notation()))
        .map_err(|e| corrupt(row, e))
}

fn side_to_move(row: &GameRow, pos: &Position) -> Option<String> {
    Some(match pos.turn() {
        Color::White => row.white_id.clone(),
        Color::Black => row.black_id.clone(),
    })
}

/// A new game row from a resolved start, with the first deadline set.
pub fn new_game(
    id: String,
    rules: Rules,
    start: &StartSpec,
    white_id: String,
    black_id: String,
    days_per_move: i32,
    now: Millis,
) -> Result<GameRow, ApiError> {
    let pos = Position::from_start(rules, &core_start(start))
        .map_err(|e| ApiError::invalid("invalid_start", e.to_string()))?;
    let (kind, number, fen) = stored_start(start);
    let mut row = GameRow {
        id,
        rules: rules.key().to_owned(),
        start_kind: kind.to_owned(),
        start_number: number,
        initial_fen: fen.unwrap_or_else(|| pos.fen()),
        initial_key: pos.repetition_key() as i64,
        current_fen: pos.fen(),
        ply: 0,
        status: STARTED.to_owned(),
        result: None,
        termination: None,
        white_id,
        black_id,
        to_move_id: None,
        days_per_move,
        deadline_at: Some(now + i64::from(days_per_move) * DAY),
        created_at: now,
        updated_at: now,
    };
    row.to_move_id = side_to_move(&row, &pos);
    if let Some(outcome) = pos.outcome() {
        finish(&mut row, outcome);
    }
    Ok(row)
}

/// The parts a start is stored as: kind, number, FEN of a `fen` start.
pub fn stored_start(start: &StartSpec) -> (&'static str, Option<i32>, Option<String>) {
    match start {
        StartSpec::Standard => ("standard", None, None),
        StartSpec::Chess960 { id } => ("chess960", id.map(i32::from), None),
        StartSpec::Shuffle { id } => ("shuffle", id.map(i32::from), None),
        StartSpec::Prechess => ("prechess", None, None),
        StartSpec::Fen { fen } => ("fen", None, Some(fen.clone())),
    }
}

fn finish(row: &mut GameRow, outcome: Outcome) {
    row.status = FINISHED.to_owned();
    row.result = Some(outcome.result().to_owned());
    row.termination = Some(outcome.reason().to_owned());
    row.to_move_id = None;
    row.deadline_at = None;
}

/// Plays `text` (UCI or SAN) for `account_id` in game `game_id`, computed
/// for `ply`. All checks and the write happen in one transaction, and the
/// write is conditional on the ply: of two racing requests one wins.
pub fn play_move(
    conn: &mut DbConnection,
    now: Millis,
    game_id: &str,
    account_id: &str,
    text: &str,
    ply: i32,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let mut row = game::find(conn, game_id)?
            .ok_or_else(|| ApiError::NotFound(format!("game {game_id}")))?;
        if account_id != row.white_id && account_id != row.black_id {
            return Err(ApiError::NotAPlayer);
        }
        if row.status != STARTED {
            return Err(ApiError::GameFinished);
        }
        if ply != row.ply {
            return Err(ApiError::StalePly {
                sent: ply,
                current: row.ply,
            });
        }
        if row.to_move_id.as_deref() != Some(account_id) {
            return Err(ApiError::NotYourTurn);
        }
        let pos = position_of(&row)?;
        let m = pos.parse_move(text).map_err(|e| match e {
            MoveError::Syntax { .. } => ApiError::InvalidMoveSyntax(e.to_string()),
            MoveError::Illegal { .. } | MoveError::Ambiguous { .. } => {
                ApiError::IllegalMove(e.to_string())
            }
        })?;
        let legal = pos.legal_moves();
        let (uci, san) = (pos.uci(&m), pos.san_among(&m, &legal));
        let mut next = pos.clone();
        next.play_unchecked(m);
        let key = next.repetition_key() as i64;

        let new_ply = row.ply + 1;
        row.current_fen = next.fen();
        row.ply = new_ply;
        row.updated_at = now;
        row.to_move_id = side_to_move(&row, &next);
        row.deadline_at = Some(now + i64::from(row.days_per_move) * DAY);
        let outcome = match next.outcome() {
            Some(outcome) => Some(outcome),
            None => is_fivefold(conn, &row, key, next.halfmoves())?
                .then_some(Outcome::Draw(DrawReason::FivefoldRepetition)),
        };
        if let Some(outcome) = outcome {
            finish(&mut row, outcome);
        }

        let advance = GameAdvance {
            current_fen: row.current_fen.clone(),
            ply: row.ply,
            status: row.status.clone(),
            result: row.result.clone(),
            termination: row.termination.clone(),
            to_move_id: row.to_move_id.clone(),
            deadline_at: row.deadline_at,
            updated_at: now,
        };
        if !game::advance(conn, game_id, ply, &advance)? {
            // Another request moved first, between our read and our write.
            return Err(ApiError::StalePly {
                sent: ply,
                current: ply + 1,
            });
        }
        game::insert_move(
            conn,
            &MoveRow {
                game_id: game_id.to_owned(),
                ply: new_ply,
                uci,
                san,
                position_key: key,
                played_at: now,
            },
        )?;
        Ok(())
    })
}

/// Whether the position after ply `row.ply`, with key `key`, stands for
/// the fifth time. Only the last `halfmoves` plies can repeat it.
fn is_fivefold(
    conn: &mut DbConnection,
    row: &GameRow,
    key: i64,
    halfmoves: u32,
) -> Result<bool, ApiError> {
    let first_ply = row.ply - i32::try_from(halfmoves).unwrap_or(i32::MAX);
    let earlier = game::count_positions_since(conn, &row.id, key, first_ply.max(1))?
        + i64::from(first_ply <= 0 && row.initial_key == key);
    Ok(earlier + 1 >= 5)
}

/// The game as clients read it.
pub fn view(conn: &mut DbConnection, game_id: &str) -> Result<GameView, ApiError> {
    let row =
        game::find(conn, game_id)?.ok_or_else(|| ApiError::NotFound(format!("game {game_id}")))?;
    let moves = game::moves_of(conn, game_id)?;
    let names = account::usernames(conn, &[&row.white_id, &row.black_id])?;
    let name = |id: &str| {
        names
            .iter()
            .find(|(account, _)| account == id)
            .map(|(_, username)| PlayerView {
                username: username.clone(),
            })
            .ok_or_else(|| corrupt(&row, format!("no account {id}")))
    };
    let pos = position_of(&row)?;
    let started = row.status == STARTED;
    let legal_moves = if started {
        let legal = pos.legal_moves();
        legal
            .iter()
            .map(|m| LegalMoveView {
                uci: pos.uci(m),
                san: pos.san_among(m, &legal),
            })
            .collect()
    } else {
        Vec::new()
    };
    let rules: Rules = row.rules.parse().map_err(|e| corrupt(&row, e))?;
    let start = start_of(&row);
    Ok(GameView {
        variant: variant_name(rules, &start).to_owned(),
        white: name(&row.white_id)?,
        black: name(&row.black_id)?,
        start,
        fen: row.current_fen.clone(),
        turn: Side::from(pos.turn()),
        status: if started {
            GameStatus::Started
        } else {
            GameStatus::Finished
        },
        check: pos.is_check(),
        deadline: row.deadline_at.map(rfc3339),
        moves: moves
            .into_iter()
            .map(|m| MoveView {
                ply: m.ply,
                uci: m.uci,
                san: m.san,
                played_at: rfc3339(m.played_at),
            })
            .collect(),
        legal_moves,
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
        id: row.id,
        rules: row.rules,
        initial_fen: row.initial_fen,
        ply: row.ply,
        result: row.result,
        termination: row.termination,
        days_per_move: row.days_per_move,
    })
}

/// The PGN `Variant` name of a rule set played from `start`.
pub fn variant_name(rules: Rules, start: &StartSpec) -> &'static str {
    rules.pgn_name(matches!(start, StartSpec::Chess960 { .. }))
}

/// The entity tag of a game's state: it changes with every ply and every
/// change of status.
pub fn etag(view: &GameView) -> String {
    let stamp: String = view
        .updated_at
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    format!("\"{}-{stamp}\"", view.ply)
}
