//! PGN: games written with RULES.md's notation and variant tags, and PGN
//! read back and replayed under the rules, never losing a move silently.

mod read;
mod replay;
mod write;

pub use read::{GameTexts, MoveToken, RawGame, read_game};
pub use replay::{ImportError, ReplayedGame, ReplayedMove, replay, rules_for_variant};
pub use write::{PgnMove, escape_tag_value, rules_tags, write_game};
