//! Move notation (docs/spec/rules.md §7, notation): canonical UCI, SAN, and their
//! aliases, parsed against the legal moves of a position.

mod san;
mod uci;

use shakmaty::Square;

use crate::{Move, MoveList, Position};

/// Why a move text was refused. Syntax errors are distinct from moves that
/// parse but are not legal here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in any notation kingpost reads.
    #[error("`{text}` is not a move in UCI or SAN notation")]
    Syntax { text: String },
    /// The text names no legal move of the position.
    #[error("`{text}` is not a legal move in {fen}")]
    Illegal { text: String, fen: String },
    /// The text names several legal moves.
    #[error("`{text}` is ambiguous in {fen}: it could be {}", candidates.join(" or "))]
    Ambiguous {
        text: String,
        fen: String,
        candidates: Vec<String>,
    },
}

/// Writes a square's name (`e4`) without making a string of it first.
fn push_square(out: &mut String, square: Square) {
    out.push(square.file().char());
    out.push(square.rank().char());
}

impl Position {
    /// Reads a move in canonical UCI or SAN, or one of their aliases.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        self.parse_move_among(text, &self.legal_moves())
    }

    /// Reads a move given the legal moves `legal` of this position: for
    /// callers that have them already.
    pub fn parse_move_among(&self, text: &str, legal: &MoveList) -> Result<Move, MoveError> {
        let text = text.trim();
        match uci::parse_syntax(text) {
            Some(uci) => self.resolve_uci(text, uci, legal),
            None => self.parse_san_among(text, legal),
        }
    }

    fn illegal(&self, text: &str) -> MoveError {
        MoveError::Illegal {
            text: text.to_owned(),
            fen: self.fen(),
        }
    }

    /// The one legal move among `candidates`, or the error that says why
    /// not. An iterator, not a list: most texts name one move, found
    /// without gathering any.
    fn single_candidate(
        &self,
        text: &str,
        candidates: impl Iterator<Item = Move> + Clone,
    ) -> Result<Move, MoveError> {
        let mut found = candidates.clone();
        match (found.next(), found.next()) {
            (Some(m), None) => Ok(m),
            (None, _) => Err(self.illegal(text)),
            (Some(_), Some(_)) => Err(MoveError::Ambiguous {
                text: text.to_owned(),
                fen: self.fen(),
                candidates: candidates.map(|m| self.uci(&m)).collect(),
            }),
        }
    }
}
