//! Messages between a game's two players, and the accounts a player has
//! muted.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::Timestamp;

/// A message of a game, as its two players read it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MessageView {
    /// Increasing within the game: read on after it with `?after=`.
    pub id: i64,
    /// The player who said it.
    pub from: String,
    /// The game's ply when it was said (after the move it went with).
    pub ply: i32,
    /// Plain text, as written.
    pub text: String,
    pub created_at: Timestamp,
}

/// Something to say to the opponent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SayRequest {
    /// Plain text: 1 to 500 characters, line breaks kept.
    pub text: String,
}

/// A game's messages, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageList {
    pub messages: Vec<MessageView>,
}

/// Which of a game's messages to read.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MessageQuery {
    /// Only the messages after this id.
    pub after: Option<i64>,
    /// At most this many, 1 to 200 (100 when left out).
    pub limit: Option<i64>,
}

/// The accounts whose messages and challenges no longer reach the caller.
#[derive(Debug, Serialize, ToSchema)]
pub struct MuteList {
    /// Their usernames, alphabetically.
    pub muted: Vec<String>,
}
