//! kingpost-core: the rules of every game kingpost hosts, as docs/spec/rules.md
//! specifies them: legal moves, their notation, FEN, starts and outcomes.
//!
//! The engine builds on shakmaty's bitboards and attack tables. One legality
//! pipeline serves every rule set; the places where a rule set differs are
//! hooks in `variant`.
//!
//! ```
//! use kingpost_core::{Game, Position, Rules};
//!
//! let mut game = Game::new(Position::new(Rules::Standard));
//! for m in ["f3", "e5", "g4", "Qh4"] {
//!     game.play_text(m).unwrap();
//! }
//! assert_eq!(game.outcome().unwrap().result(), "0-1");
//! ```

mod fen;
mod game;
mod movegen;
mod moves;
mod notation;
mod outcome;
pub mod packed;
mod perft;
pub mod pgn;
mod position;
mod start;
mod variant;
mod zobrist;

pub use fen::{FenError, FenField};
pub use game::Game;
pub use movegen::Wanted;
pub use moves::{Move, MoveKind, MoveList};
pub use notation::MoveError;
pub use outcome::{DrawReason, Outcome, WinReason, repetition_outcome, result_for};
pub use perft::{perft, perft_divide};
pub use position::{CastlingNotation, Position, PositionError};
pub use shakmaty::{
    Bitboard, Board, ByColor, CastlingSide, Color, File, Piece, Rank, Role, Square,
};
pub use start::{
    CHESS960_COUNT, ParseStartError, SHUFFLE_COUNT, Start, StartError, StartKind, USUAL_ARRAY,
    chess960_array, shuffle_array,
};
pub use variant::{Right, Rules, UnknownRules};
