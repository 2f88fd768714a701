//! PGN bodies, the archive's games and the import report.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{
    GamePlayerView, GameResult, GameStatus, MoveView, Opening, RuleKey, StartSpec, Termination,
    Timestamp,
};

text_schema!(
    PgnText,
    "PGN text (`application/x-chess-pgn`): one game or many, separated by blank lines."
);

/// PGN to import, as JSON: for clients that send JSON bodies only.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// PGN text: one game or many, separated by blank lines.
    pub pgn: String,
}

/// A game of an archive, as one line of NDJSON.
#[derive(Debug, Serialize, ToSchema)]
pub struct ArchivedGame {
    pub id: String,
    pub rules: RuleKey,
    pub variant: String,
    pub start: StartSpec,
    /// A standard game's opening, once it reached a named position.
    pub opening: Option<Opening>,
    pub white: GamePlayerView,
    pub black: GamePlayerView,
    pub status: GameStatus,
    pub result: Option<GameResult>,
    pub termination: Option<Termination>,
    pub initial_fen: String,
    pub fen: String,
    /// The days each side had for a move (see `DaysPerMove`); 0 for an
    /// imported game.
    pub days_per_move: i32,
    pub moves: Vec<MoveView>,
    pub created_at: Timestamp,
}

/// What an import did, game by game: every game of the file is counted.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportReport {
    /// The games the file holds.
    pub read: usize,
    pub imported: usize,
    pub duplicates: usize,
    /// Games stored (new or duplicate) without the moves after the rules'
    /// end.
    pub shortened: usize,
    pub rejected: usize,
    /// The collection the games were filed in (the HTTP import's; none
    /// from the command line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection_id: Option<String>,
    pub games: Vec<ImportedGameView>,
}

/// The fate of one game of an import.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportedGameView {
    /// The game's place in the file, from 1.
    pub index: usize,
    /// The tags that name the game, where it has them.
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub round: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    /// The stored game, new or imported before.
    pub id: Option<String>,
    /// Whether the same game (tags and moves) was imported before.
    pub duplicate: bool,
    /// Set when the rules ended the game before its last written move: the
    /// moves after the end are dropped, as live play would not have them.
    pub shortened: Option<ShortenedView>,
    /// What was read otherwise than written (an encoding, a Result tag that
    /// is no result, a stated result the rules overrule).
    pub warnings: Vec<String>,
    /// Why the game was refused.
    pub error: Option<ImportErrorView>,
}

/// Where an imported game stops before its last written move, and what was
/// dropped after: where nothing is legal (a mate, a stalemate, a rule set's
/// own win), or at a null move.
#[derive(Debug, Serialize, ToSchema)]
pub struct ShortenedView {
    /// The plies kept.
    pub plies: usize,
    /// The moves written after them, dropped.
    pub dropped: usize,
    /// The result the position gave, `1-0`, `0-1` or `1/2-1/2`; `null` for
    /// a game cut at a null move, which keeps its recorded result.
    pub result: Option<String>,
    /// Why it stops there: how the position ended it (`checkmate`,
    /// `stalemate`, ...), or `null_move`.
    pub reason: String,
}

/// Why a game was refused: the ply and move text when a move is at fault.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportErrorView {
    pub ply: Option<usize>,
    #[serde(rename = "move")]
    pub move_text: Option<String>,
    pub reason: String,
}
