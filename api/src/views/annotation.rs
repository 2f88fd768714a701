//! Annotations: what a game's file says beside its moves, and what its
//! players wrote on it after it ended.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Timestamp;

/// A move of a variation, in canonical UCI and SAN, with its annotations
/// and the variations that replace it in turn.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VariationMove {
    pub uci: String,
    pub san: String,
    /// The position after the move.
    pub fen: String,
    /// A comment before the move, at the start of a variation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starting_comment: Option<String>,
    /// Numeric annotation glyphs (1 `!`, 2 `?`, 14 `+=`...), ascending.
    pub nags: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Lines played instead of this move.
    #[schema(no_recursion)]
    pub variations: Vec<Vec<VariationMove>>,
}

/// The annotations of a mainline move as the game's file gave them.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoveNotes {
    /// The ply of the move annotated (1 is the first move).
    pub ply: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub starting_comment: Option<String>,
    pub nags: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Lines played instead of this move, each from the position before it.
    pub variations: Vec<Vec<VariationMove>>,
}

/// A player's annotation of one ply of their finished game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerAnnotation {
    /// The ply annotated; 0 is the game as a whole.
    pub ply: i32,
    pub author: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    pub nags: Vec<u8>,
    pub updated_at: Timestamp,
}

/// Everything written on a game beside its moves. PGN exports carry it
/// all; players' annotations are written there as `{author: comment}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameAnnotations {
    /// The comment before the first move, from the game's file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The file's annotations, by ply, of the moves it annotates.
    pub moves: Vec<MoveNotes>,
    /// The players' annotations, by ply and author.
    pub players: Vec<PlayerAnnotation>,
}

/// A player's annotation of a ply, replacing theirs there before.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnnotateRequest {
    /// Up to 2,000 characters, without `}` (it would end a PGN comment).
    #[serde(default)]
    pub comment: Option<String>,
    /// Numeric annotation glyphs, 1 to 255, at most 8 (none on ply 0).
    #[serde(default)]
    pub nags: Vec<i64>,
}
