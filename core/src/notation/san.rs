//! SAN as RULES.md writes it, with disambiguation and `+`/`#` suffixes.

use shakmaty::{CastlingSide, Role, san::San};

use super::MoveError;
use crate::{Move, MoveList, Position};

impl Position {
    /// The SAN of a legal move of this position, with its check or mate suffix.
    pub fn san(&self, m: &Move) -> String {
        self.san_among(m, &self.legal_moves())
    }

    /// The SAN of `m`, given the legal moves `legal` of this position.
    pub fn san_among(&self, m: &Move, legal: &MoveList) -> String {
        let mut out = self.san_without_suffix(m, legal);
        let mut after = self.clone();
        after.play_unchecked(*m);
        if after.outcome().and_then(|o| o.winner()) == Some(self.turn) {
            out.push('#');
        } else if after.is_check() {
            out.push('+');
        }
        out
    }

    fn san_without_suffix(&self, m: &Move, legal: &MoveList) -> String {
        let mut out = String::new();
        match *m {
            Move::Castle { .. } => {
                out.push_str(match m.castling_side() {
                    Some(CastlingSide::KingSide) => "O-O",
                    _ => "O-O-O",
                });
            }
            Move::EnPassant { from, to } => {
                out.push(from.file().char());
                out.push('x');
                out.push_str(&to.to_string());
            }
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                if role == Role::Pawn {
                    if capture.is_some() {
                        out.push(from.file().char());
                    }
                } else {
                    out.push(role.upper_char());
                    let rivals = legal.iter().filter_map(|other| match *other {
                        Move::Normal {
                            role: r,
                            from: f,
                            to: t,
                            ..
                        } if r == role && t == to && f != from => Some(f),
                        _ => None,
                    });
                    let (mut any, mut same_file, mut same_rank) = (false, false, false);
                    for rival in rivals {
                        any = true;
                        same_file |= rival.file() == from.file();
                        same_rank |= rival.rank() == from.rank();
                    }
                    if any && (!same_file || same_rank) {
                        out.push(from.file().char());
                    }
                    if same_file {
                        out.push(from.rank().char());
                    }
                }
                if capture.is_some() {
                    out.push('x');
                }
                out.push_str(&to.to_string());
                if let Some(promotion) = promotion {
                    out.push('=');
                    out.push(promotion.upper_char());
                }
            }
        }
        out
    }

    /// Reads a move in SAN. Check and mate suffixes, annotations (`!`, `?`)
    /// and a missing or surplus capture mark are tolerated; `0-0` is read
    /// as `O-O`.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let syntax_error = || MoveError::Syntax {
            text: text.to_owned(),
        };
        let core = text
            .trim_end_matches(['+', '#', '!', '?'])
            .replace('0', "O");
        let san = San::from_ascii(core.as_bytes()).map_err(|_| syntax_error())?;
        let legal = self.legal_moves();
        let candidates: Vec<Move> = match san {
            San::Castle(side) => legal
                .iter()
                .filter(|m| m.castling_side() == Some(side))
                .copied()
                .collect(),
            San::Normal {
                role,
                file,
                rank,
                to,
                promotion,
                ..
            } => legal
                .iter()
                .filter(|m| {
                    let (from, dest) = match **m {
                        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
                        Move::Castle { .. } => return false,
                    };
                    m.role() == role
                        && dest == to
                        && m.promotion() == promotion
                        && file.is_none_or(|f| f == from.file())
                        && rank.is_none_or(|r| r == from.rank())
                })
                .copied()
                .collect(),
            San::Put { .. } | San::Null => Vec::new(),
        };
        self.single_candidate(text, candidates)
    }
}
