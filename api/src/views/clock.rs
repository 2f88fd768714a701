//! Correspondence clocks beside days per move.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A clock that carries time over from move to move (instead of
/// `days_per_move`, which gives each move the same days afresh).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockSpec {
    /// ICCF's control: each player has `days` days for every `moves` moves;
    /// time not used carries over (10 moves in 50 days: 50 days for moves 1
    /// to 10, 50 more added after the 10th, and so on).
    Control {
        #[schema(minimum = 1, maximum = 50)]
        moves: i32,
        #[schema(minimum = 1, maximum = 365)]
        days: i32,
    },
    /// A bank: `initial_days` to start, `increment_days` added after each
    /// move, never more than `max_days` held.
    Bank {
        #[schema(minimum = 1, maximum = 180)]
        initial_days: i32,
        #[schema(minimum = 0, maximum = 30)]
        increment_days: i32,
        #[schema(minimum = 1, maximum = 365)]
        max_days: i32,
    },
}

/// A game's clock as it stands.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClockView {
    pub spec: ClockSpec,
    /// White's time left: to the deadline while White is to move (its
    /// vacation counted), else what White's last move left in the bank;
    /// null for the side to move once the game is over.
    pub white_seconds: Option<i64>,
    pub black_seconds: Option<i64>,
    /// For a control: the moves the side to move has to make before its
    /// next control adds time.
    pub moves_to_control: Option<i32>,
}
