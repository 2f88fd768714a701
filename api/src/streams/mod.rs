//! Answers that last: held requests following an account's events, and
//! files streamed a page at a time. Shared by the route files of
//! kingpost's API and of the lichess-compatible surface.

pub mod events;
pub mod pgn;

pub use events::{Follower, Next};
pub use pgn::streamed_pgn;
