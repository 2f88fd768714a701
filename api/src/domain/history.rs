//! A game's positions ply by ply, for a player stepping through it: each
//! position's FEN and the move that led to it, with the move's kind.

use kingpost_core::Position;

use crate::{
    db::DbConnection,
    domain::game::{core_start, corrupt, readable_game, start_of},
    error::ApiError,
    models::game,
    stored::{AccountId, GameId},
    views::{HistoryView, PlayedView, PlyView},
};

/// The positions of game `game_id`, its stored moves replayed.
pub fn history(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    game_id: &GameId,
) -> Result<HistoryView, ApiError> {
    let row = readable_game(conn, reader, game_id)?;
    let mut pos = Position::from_start(row.rules.0, &core_start(&start_of(&row)))
        .map_err(|e| corrupt(&row, e))?;
    let moves = game::moves_of(conn, game_id)?;
    let mut positions = Vec::with_capacity(moves.len() + 1);
    positions.push(PlyView {
        ply: 0,
        fen: pos.fen(),
        check: pos.is_check(),
        played: None,
    });
    for stored in moves {
        let m = pos
            .parse_move(&stored.uci)
            .map_err(|e| corrupt(&row, format!("ply {}: {e}", stored.ply)))?;
        pos.play_unchecked(m);
        positions.push(PlyView {
            ply: stored.ply,
            fen: pos.fen(),
            check: pos.is_check(),
            played: Some(PlayedView {
                uci: stored.uci,
                san: stored.san,
                kind: m.kind().into(),
            }),
        });
    }
    Ok(HistoryView { positions })
}
