//! Glicko-2 ratings, one pool per rule set and start family: seated when a
//! rated game begins, moved once when it finishes, in the transaction that
//! finishes it. docs/ratings.md says why the constants are what they are.
//! The maths (`glicko`) is apart from the database's rows (`settle`) and
//! from what players read (`reads`).

mod glicko;
mod reads;
mod settle;

pub use glicko::{PERIOD, PROVISIONAL, current, established_until, rate};
pub use reads::*;
pub use settle::*;
