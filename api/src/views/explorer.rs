//! The opening explorer: what was played from a position.

use serde::Serialize;
use utoipa::ToSchema;

/// One move played from the position, with how its games ended.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExplorerMove {
    pub uci: String,
    pub san: String,
    /// The games that played it (under way and unknown results too).
    pub games: i64,
    pub white: i64,
    pub draws: i64,
    pub black: i64,
}

/// The moves played from a position, most played first.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExplorerView {
    /// The position, as kingpost writes its FEN.
    pub fen: String,
    /// Games that went on from it, each counted once: a game that stood
    /// there twice and left by two moves counts in both moves, and once
    /// here.
    pub games: i64,
    pub white: i64,
    pub draws: i64,
    pub black: i64,
    pub moves: Vec<ExplorerMove>,
}
