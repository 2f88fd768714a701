//! A stored game's moves, read by replaying its packed moves (each move's
//! UCI, SAN, position and time), and the position index rows they make.

use std::collections::HashSet;

use kingpost_core::{Move, MoveList, Position, packed};

use crate::{
    db::{DbConnection, write_transaction},
    error::ApiError,
    models::{
        collection,
        explorer_counts::{self, Tally},
        game::{self, GameRow, GameStatus},
        legacy_moves, move_times,
        position_index::{self, NO_MOVE, PositionRow},
    },
    stored::GameId,
};

use super::{core_start, corrupt, start_of};

/// A move of a stored game, as its replay reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    pub ply: i32,
    pub uci: String,
    pub san: String,
    /// The repetition key of the position after the move.
    pub position_key: i64,
    /// When it was played; unknown for most moves of imported games.
    pub played_at: Option<i64>,
}

/// The position a stored game began in.
pub fn initial_position(row: &GameRow) -> Result<Position, ApiError> {
    Position::from_start(row.rules.0, &core_start(&start_of(row))).map_err(|e| corrupt(row, e))
}

/// One move of a replay: the position it is played from, its legal moves,
/// the move, and the position it reaches.
#[derive(Debug)]
pub struct Step<'a> {
    pub before: &'a Position,
    pub legal: &'a MoveList,
    pub played: Move,
    pub after: &'a Position,
}

/// Replays the moves of `row`, showing `visit` each step. The final
/// position.
pub fn replay(row: &GameRow, mut visit: impl FnMut(Step<'_>)) -> Result<Position, ApiError> {
    let initial = initial_position(row)?;
    let mut reader =
        packed::Unpacked::new(initial.clone(), &row.moves).map_err(|e| corrupt(row, e))?;
    let mut before = initial;
    while let Some(m) = reader.next() {
        let m = m.map_err(|e| corrupt(row, e))?;
        visit(Step {
            before: &before,
            legal: reader.legal_moves(),
            played: m,
            after: reader.position(),
        });
        before = reader.position().clone();
    }
    Ok(before)
}

/// The moves of `row`, each named and timed.
pub fn played_moves(row: &GameRow) -> Result<Vec<PlayedMove>, ApiError> {
    let mut moves = Vec::with_capacity(row.moves.len());
    replay(row, |step| {
        moves.push(PlayedMove {
            ply: i32::try_from(moves.len() + 1).unwrap_or(i32::MAX),
            uci: step.before.uci(&step.played),
            san: step.before.san_among(&step.played, step.legal),
            position_key: step.after.repetition_key() as i64,
            played_at: None,
        });
    })?;
    let times = move_times::of_moves(row.move_times.as_deref(), moves.len());
    for (m, time) in moves.iter_mut().zip(times) {
        m.played_at = time;
    }
    Ok(moves)
}

/// The repetition key of each position of `row`, its start first.
pub fn position_keys(row: &GameRow) -> Result<Vec<i64>, ApiError> {
    let mut keys = vec![row.initial_key];
    replay(row, |step| keys.push(step.after.repetition_key() as i64))?;
    Ok(keys)
}

/// The index rows of game `game_id`, whose positions have the keys `keys`
/// (its start first) and whose moves have the packed numbers `numbers`
/// (one fewer): each position with the move played from it, the last with
/// none, each pair once at its first ply.
pub fn index_rows(game_id: &GameId, keys: &[i64], numbers: &[usize]) -> Vec<PositionRow> {
    let mut seen = HashSet::with_capacity(keys.len());
    let next = numbers
        .iter()
        .map(|&n| i16::try_from(n).unwrap_or(i16::MAX))
        .chain(std::iter::once(NO_MOVE));
    keys.iter()
        .zip(next)
        .enumerate()
        .filter(|(_, (key, next))| seen.insert((**key, *next)))
        .map(|(ply, (&position_key, next))| PositionRow {
            position_key,
            game_id: game_id.clone(),
            next,
            ply: i32::try_from(ply).unwrap_or(i32::MAX),
        })
        .collect()
}

/// Every index row of the stored game `row`: its start's and its moves'.
pub fn all_index_rows(row: &GameRow) -> Result<Vec<PositionRow>, ApiError> {
    let keys = position_keys(row)?;
    let numbers = packed::numbers(&row.moves).map_err(|e| corrupt(row, e))?;
    Ok(index_rows(&row.id, &keys, &numbers))
}

/// Adds the game `row`, whose index rows are `rows`, to the explorer's
/// counts of `scope`: a played game as it finishes, an imported one in
/// its collection.
pub fn count_in_explorer(
    conn: &mut DbConnection,
    row: &GameRow,
    rows: &[PositionRow],
    scope: &str,
) -> Result<(), ApiError> {
    let mut tally = Tally::default();
    tally.add_game(scope, row.rules, row.result, rows);
    explorer_counts::add(conn, &tally.rows())?;
    Ok(())
}

/// Games whose moves a transaction of [`pack_legacy_moves`] packs.
const PACKED_AT_ONCE: i64 = 500;

/// Packs the moves of the games stored before moves were packed in their
/// rows (migration 30), five hundred games a transaction, writing their
/// positions to the index; then drops the old table. How many games.
pub fn pack_legacy_moves(conn: &mut DbConnection) -> Result<usize, ApiError> {
    if !legacy_moves::remain(conn)? {
        return Ok(0);
    }
    let mut packed_games = 0;
    loop {
        let ids = legacy_moves::games(conn, PACKED_AT_ONCE)?;
        if ids.is_empty() {
            legacy_moves::drop_table(conn)?;
            return Ok(packed_games);
        }
        write_transaction(conn, |conn| {
            let refs: Vec<&GameId> = ids.iter().collect();
            for row in game::find_all(conn, &refs)? {
                pack_legacy_game(conn, &row)?;
            }
            Ok::<_, ApiError>(())
        })?;
        let batch = ids.len();
        packed_games += batch;
        if packed_games % 100_000 < batch {
            tracing::info!(packed_games, "games' moves packed");
        }
    }
}

/// Packs the moves of one game stored before moves were packed, and
/// indexes its positions.
fn pack_legacy_game(conn: &mut DbConnection, row: &GameRow) -> Result<(), ApiError> {
    let stored = legacy_moves::moves_of(conn, &row.id)?;
    if stored.is_empty() {
        // Another instance starting at the same time packed it since the
        // game was listed: its moves are in its row already.
        return Ok(());
    }
    let initial = initial_position(row)?;
    let mut pos = initial.clone();
    let mut played = Vec::with_capacity(stored.len());
    let mut keys = vec![row.initial_key];
    for m in &stored {
        let parsed = pos
            .parse_move(&m.uci)
            .map_err(|e| corrupt(row, format!("ply {}: {e}", m.ply)))?;
        pos.play_unchecked(parsed);
        played.push(parsed);
        keys.push(pos.repetition_key() as i64);
    }
    let moves = packed::pack(&initial, &played).map_err(|e| corrupt(row, e))?;
    let times: Vec<Option<i64>> = stored.iter().map(|m| m.played_at).collect();
    let numbers = packed::numbers(&moves).map_err(|e| corrupt(row, e))?;
    // The migration indexed the start alone, as of a game without moves.
    position_index::leave(conn, &row.id, row.initial_key)?;
    let rows = index_rows(&row.id, &keys, &numbers);
    position_index::insert(conn, &rows)?;
    // and counted none of its moves in the explorer.
    match row.status {
        GameStatus::Finished => count_in_explorer(conn, row, &rows, explorer_counts::PLAYED)?,
        GameStatus::Imported => {
            for held_by in collection::holding(conn, &row.id)? {
                count_in_explorer(conn, row, &rows, held_by.as_str())?;
            }
        }
        GameStatus::Started | GameStatus::Aborted => {}
    }
    legacy_moves::replace(conn, &row.id, &moves, move_times::pack(&times).as_deref())?;
    Ok(())
}

/// The repetition keys of the positions of `row` since its last capture or
/// pawn move (`halfmoves` plies), the current one last: as the row keeps
/// them, else replayed.
pub fn recent_keys(row: &GameRow, halfmoves: usize) -> Result<Vec<i64>, ApiError> {
    if let Some(bytes) = &row.recent_keys {
        return Ok(bytes
            .chunks_exact(8)
            .map(|key| i64::from_le_bytes(key.try_into().expect("8 bytes")))
            .collect());
    }
    let mut keys = position_keys(row)?;
    keys.drain(..keys.len().saturating_sub(halfmoves + 1));
    Ok(keys)
}

/// `keys` as a row keeps them: 8 bytes each, little-endian.
pub fn packed_keys(keys: &[i64]) -> Vec<u8> {
    keys.iter().flat_map(|key| key.to_le_bytes()).collect()
}
