//! PGN: games written with docs/spec/rules.md's notation (§7) and variant tags, and PGN
//! read back and replayed under the rules, never losing a move silently.

mod notes;
mod read;
mod replay;
mod split;
mod tokens;
mod write;

pub use notes::{LineMove, MAX_VARIATION_DEPTH, Notes, suffix_nag};
pub use read::{GameLabel, MoveToken, RawGame, read_game};
pub use replay::{
    Cut, ImportError, ImportWarning, ReplayedGame, ReplayedMove, Shortened, replay,
    rules_for_variant,
};
pub use split::{GameText, GameTexts};
pub use tokens::{RESULTS, result_of};
pub use write::{PgnMove, rules_tags, write_game, write_played};
