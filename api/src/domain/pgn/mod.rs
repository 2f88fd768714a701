//! Games as PGN: one game, archives a page at a time (so that an archive is
//! streamed, never built whole), and PGN imported for study, with the report of what became of each game. An imported
//! game's tags are written back by the same rules its import key is made
//! by (`tags`), so that an export read back is the game again.

mod export;
mod import;
mod report;
mod tags;

pub use export::*;
pub use import::*;
pub use report::report_of;
