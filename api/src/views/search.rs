//! What searches of the study archive answer.

use serde::Serialize;
use utoipa::ToSchema;

use super::ArchivedGame;

/// A game that reached the position searched for.
#[derive(Debug, Serialize, ToSchema)]
pub struct PositionHit {
    /// The first ply after which the game stood in the position: 0 for a
    /// game that began in it.
    pub ply: i32,
    pub game: ArchivedGame,
}

/// One page of the games that reached a position, by game id.
#[derive(Debug, Serialize, ToSchema)]
pub struct PositionSearch {
    /// The position searched for, as kingpost writes its FEN.
    pub fen: String,
    pub games: Vec<PositionHit>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// One page of the games a search by their data found, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameSearch {
    pub games: Vec<ArchivedGame>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
    /// With `player`: how this page's games spell that player's name (and
    /// the opponent's, with `opponent`), each spelling once, in order.
    pub spellings: Vec<String>,
}
