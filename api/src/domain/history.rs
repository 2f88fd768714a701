//! A game's positions ply by ply, for a player stepping through it: each
//! position's FEN and the move that led to it, with the move's kind.

use crate::{
    db::DbConnection,
    domain::game::{
        moves::{initial_position, replay},
        readable_game,
    },
    error::ApiError,
    stored::{AccountId, GameId},
    views::{HistoryView, PlayedView, PlyView, RightsView},
};

/// The positions of game `game_id`, its stored moves replayed.
pub fn history(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    game_id: &GameId,
) -> Result<HistoryView, ApiError> {
    let row = readable_game(conn, reader, game_id)?;
    let initial = initial_position(&row)?;
    let mut positions = Vec::with_capacity(row.moves.len());
    positions.push(PlyView {
        ply: 0,
        fen: initial.fen(),
        check: initial.is_check(),
        rights: RightsView::of(&initial),
        played: None,
    });
    replay(&row, |step| {
        positions.push(PlyView {
            ply: i32::try_from(positions.len()).unwrap_or(i32::MAX),
            fen: step.after.fen(),
            check: step.after.is_check(),
            rights: RightsView::of(step.after),
            played: Some(PlayedView {
                uci: step.before.uci(&step.played),
                san: step.before.san_among(&step.played, step.legal),
                kind: step.played.kind().into(),
            }),
        });
    })?;
    Ok(HistoryView { positions })
}
