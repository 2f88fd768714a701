//! The life of a game: its position rebuilt from the row; every change a
//! player asks for applied in one transaction after the clock is checked,
//! and stored only if nobody changed the game meanwhile; deadlines,
//! timeouts, draws and conditional moves; the view clients read.

mod actions;
pub mod clock;
pub mod listing;
mod loaded;
pub mod moves;
mod open;
mod start;
mod sweep;
mod view;

pub use actions::{Action, Play, Player, act, play_move};
pub(crate) use loaded::Loaded;
pub use loaded::{
    adjudicate_draw, effective_deadline, find_game, find_game_for_update, forfeit, readable_game,
};
pub use open::{Setup, open, tell_started};
pub(crate) use start::corrupt;
pub use start::{
    Players, core_start, new_game, position_of, spec_from_parts, start_of, stored_start,
    variant_name,
};
pub use sweep::{SWEEP_STEP, Sweep, sweep, warning_window};
pub use view::{etag, move_answer, view, view_of, view_unless_due};
