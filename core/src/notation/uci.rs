//! Canonical UCI: `e2e4`, `e7e8q`; castling king-to-destination on the
//! usual array and king-to-rook elsewhere, each accepting the other as an
//! alias where it is unambiguous.

use shakmaty::{Role, Square, uci::UciMove};

use super::{MoveError, push_square};
use crate::{Move, MoveList, Position, position::CastlingNotation};

/// The squares (and promotion) that a move's UCI names.
type UciParts = (Square, Square, Option<Role>);

pub(super) fn parse_syntax(text: &str) -> Option<UciMove> {
    UciMove::from_ascii(text.as_bytes()).ok()
}

impl Position {
    /// The canonical UCI of a move of this position.
    pub fn uci(&self, m: &Move) -> String {
        let Some((from, to, promotion)) = self.uci_parts(m) else {
            let Move::Put { role, to } = *m else {
                unreachable!("only placements name no squares pair")
            };
            return format!("{}@{to}", role.upper_char());
        };
        let mut out = String::with_capacity(5);
        push_square(&mut out, from);
        push_square(&mut out, to);
        if let Some(role) = promotion {
            out.push(role.char());
        }
        out
    }

    /// The squares a move's UCI names; a placement (`K@e1`) names none.
    fn uci_parts(&self, m: &Move) -> Option<UciParts> {
        Some(match *m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => (from, to, promotion),
            Move::EnPassant { from, to }
            | Move::Teleport { from, to }
            | Move::Leap { from, to } => (from, to, None),
            Move::Switch {
                first,
                second,
                promotion,
            } => (first, second, promotion),
            Move::Castle { king, rook } => match self.castling_notation {
                CastlingNotation::KingToDestination => {
                    (king, self.castling_destinations(king, rook).0, None)
                }
                CastlingNotation::KingToRook => (king, rook, None),
            },
            Move::Put { .. } => return None,
        })
    }

    /// A switch's alias: its squares in the other order.
    fn switch_alias(m: &Move) -> Option<UciParts> {
        match *m {
            Move::Switch {
                first,
                second,
                promotion,
            } => Some((second, first, promotion)),
            _ => None,
        }
    }

    /// The castling alias: the form of the notation not in use.
    fn castling_alias(&self, m: &Move) -> Option<UciParts> {
        let Move::Castle { king, rook } = *m else {
            return None;
        };
        Some(match self.castling_notation {
            CastlingNotation::KingToDestination => (king, rook, None),
            CastlingNotation::KingToRook => (king, self.castling_destinations(king, rook).0, None),
        })
    }

    /// Reads a move in UCI.
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveError> {
        let uci = parse_syntax(text).ok_or_else(|| MoveError::Syntax {
            text: text.to_owned(),
        })?;
        self.resolve_uci(text, uci, &self.legal_moves())
    }

    pub(super) fn resolve_uci(
        &self,
        text: &str,
        uci: UciMove,
        legal: &MoveList,
    ) -> Result<Move, MoveError> {
        let parts = match uci {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => (from, to, promotion),
            UciMove::Put { role, to } => {
                let put = Move::Put { role, to };
                return if legal.contains(&put) {
                    Ok(put)
                } else {
                    Err(self.illegal(text))
                };
            }
            UciMove::Null => return Err(self.illegal(text)),
        };
        if let Some(m) = legal.iter().find(|m| self.uci_parts(m) == Some(parts)) {
            return Ok(*m);
        }
        // Canonical forms take precedence, so an alias only stands where no
        // legal move has those squares; a castling alias before a switch's
        // (docs/spec/rules.md §7.1: a king-first pair that names a legal castling is that
        // castling).
        let castlings = legal
            .iter()
            .copied()
            .filter(|m| self.castling_alias(m) == Some(parts));
        if castlings.clone().next().is_some() {
            return self.single_candidate(text, castlings);
        }
        let switches = legal
            .iter()
            .copied()
            .filter(|m| Self::switch_alias(m) == Some(parts));
        self.single_candidate(text, switches)
    }
}
