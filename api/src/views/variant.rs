//! The rule sets, as clients list them.

use serde::Serialize;
use utoipa::ToSchema;

/// A rule set of the specification (docs/spec/rules.md §1.1).
#[derive(Debug, Serialize, ToSchema)]
pub struct VariantView {
    /// The key used in challenges and games.
    pub key: String,
    /// The name players read: "Chess", "Teleporting Kings", ...
    pub title: String,
    /// The PGN `Variant` name from the usual array.
    pub name: String,
    /// The PGN `Variant` name from a Chess960 start, if it has one.
    pub name_960: Option<String>,
    /// The kinds of start it is played from.
    pub starts: Vec<String>,
    /// Those of `starts` a rated game may have (a FEN start is never rated).
    pub rated_starts: Vec<String>,
    /// How its own moves are written.
    pub notation: String,
}

/// Whole numbers from `min` to `max`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Bounds {
    pub min: i32,
    pub max: i32,
}

/// The times a challenge or a tournament may ask for: days per move, or a
/// clock (`ClockSpec`) within these bounds.
#[derive(Debug, Serialize, ToSchema)]
pub struct TimeChoices {
    /// The days per move on offer.
    pub days_per_move: Vec<i32>,
    pub control_moves: Bounds,
    pub control_days: Bounds,
    pub bank_initial_days: Bounds,
    pub bank_increment_days: Bounds,
    /// At most; at least the bank's initial days.
    pub bank_max_days: i32,
}

/// The rule sets, and the times games may be played at.
#[derive(Debug, Serialize, ToSchema)]
pub struct VariantList {
    pub variants: Vec<VariantView>,
    pub time: TimeChoices,
}
