//! Where a game begins, as challenges ask for it and games show it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a game begins (RULES.md, starts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartSpec {
    // Empty struct variants, not unit ones: they refuse unknown fields, so
    // that `{"kind": "standard", "id": 3}` is an error.
    /// The usual array.
    Standard {},
    /// A Chess960 array by Scharnagl number 0..959, random when left out.
    Chess960 {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u16>,
    },
    /// A shuffle array by id 0..2879 (King to Bunker Leap), random when left out.
    Shuffle {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u16>,
    },
    /// Empty back ranks and a placement phase (King to Bunker Leap).
    Prechess {},
    /// Any legal position of the rule set, as extended FEN.
    Fen { fen: String },
}
