//! SAN as docs/spec/rules.md §7 writes it, with disambiguation and `+`/`#` suffixes.
//! Teleports are written as king moves (`Kc5`), switches as the first
//! unit's letter and both squares (`Rb8c8`, `a7b8=Q`).

use shakmaty::{CastlingSide, Role, Square, san::San};

use super::{MoveError, push_square};
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
        out.extend(after.san_suffix());
        out
    }

    /// The suffix of the SAN of the move that led here: `#` when it won,
    /// `+` when it checked. For callers that play the move anyway.
    pub fn san_suffix(&self) -> Option<char> {
        let mover = !self.turn;
        // A win is a rule set's own (the goal rank) or checkmate; only a
        // check needs the reply moves counted.
        let mover_wins = self.rules.outcome(self).and_then(|o| o.winner()) == Some(mover);
        let check = self.is_check();
        if mover_wins || check && self.legal_moves().is_empty() {
            Some('#')
        } else if check {
            Some('+')
        } else {
            None
        }
    }

    /// The role of the unit on `square`, which the move generator knows is there.
    fn role_on(&self, square: Square) -> Role {
        self.board
            .role_at(square)
            .expect("a unit on the move's square")
    }

    /// The SAN of `m` without its check or mate suffix, given the legal
    /// moves of this position that land where `m` lands, or all of them.
    pub fn san_without_suffix(&self, m: &Move, legal: &MoveList) -> String {
        // Room for every SAN, its suffix included (`Qh4xe1+`, `exd8=Q#`).
        let mut out = String::with_capacity(8);
        match *m {
            Move::Castle { .. } => {
                out.push_str(match m.castling_side() {
                    Some(CastlingSide::KingSide) => "O-O",
                    _ => "O-O-O",
                });
            }
            Move::Switch { first, second, .. } => {
                let role = self.role_on(first);
                if role != Role::Pawn {
                    out.push(role.upper_char());
                }
                push_square(&mut out, first);
                push_square(&mut out, second);
            }
            Move::Put { role, to } => {
                out.push(role.upper_char());
                out.push('@');
                push_square(&mut out, to);
            }
            Move::Normal { .. }
            | Move::EnPassant { .. }
            | Move::Teleport { .. }
            | Move::Leap { .. } => {
                let (from, to) = m.from_to().expect("a move from one square to another");
                let role = self.role_on(from);
                if role == Role::Pawn {
                    if m.is_capture() {
                        out.push(from.file().char());
                    }
                } else {
                    out.push(role.upper_char());
                    self.push_disambiguation(&mut out, role, from, to, legal);
                }
                if m.is_capture() {
                    out.push('x');
                }
                push_square(&mut out, to);
            }
        }
        if let Some(promotion) = m.promotion() {
            out.push('=');
            out.push(promotion.upper_char());
        }
        out
    }

    /// The file, rank or both of `from` when another unit of the same role
    /// could also move to `to`.
    fn push_disambiguation(
        &self,
        out: &mut String,
        role: Role,
        from: Square,
        to: Square,
        legal: &MoveList,
    ) {
        let (mut any, mut same_file, mut same_rank) = (false, false, false);
        for (rival, _) in legal
            .iter()
            .filter_map(Move::from_to)
            .filter(|&(f, t)| t == to && f != from && self.role_on(f) == role)
        {
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

    /// Reads a move in SAN. Check and mate suffixes, annotations (`!`, `?`)
    /// and a missing or surplus capture mark are tolerated; `0-0` is read
    /// as `O-O`, long algebraic `Ng1-f3` as `Ng1f3`, `a8Q` as `a8=Q`, and
    /// the switch form `Sb8c8` as the switch of those squares.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        self.parse_san_among(text, &self.legal_moves())
    }

    pub(super) fn parse_san_among(&self, text: &str, legal: &MoveList) -> Result<Move, MoveError> {
        let syntax_error = || MoveError::Syntax {
            text: text.to_owned(),
        };
        let mut core = text
            .trim_end_matches(['+', '#', '!', '?'])
            .replace('0', "O");
        // Long algebraic `Ng1-f3` names the same move as `Ng1f3`.
        if !core.starts_with('O') {
            core.retain(|c| c != '-');
        }
        if let Some(rest) = core.strip_prefix('S') {
            let (squares, promotion) = split_promotion(rest).ok_or_else(syntax_error)?;
            let (a, b) = parse_square_pair(squares).ok_or_else(syntax_error)?;
            let switches = legal.iter().copied().filter(|m| match *m {
                Move::Switch {
                    first,
                    second,
                    promotion: p,
                } => ((first, second) == (a, b) || (first, second) == (b, a)) && p == promotion,
                _ => false,
            });
            return self.single_candidate(text, switches);
        }
        promotion_with_equals(&mut core);
        let san = San::from_ascii(core.as_bytes()).map_err(|_| syntax_error())?;
        self.resolve_san(text, &san, legal)
    }

    /// The legal move (among `legal`) that parsed SAN names; `text` is what
    /// an error quotes.
    pub fn resolve_san(&self, text: &str, san: &San, legal: &MoveList) -> Result<Move, MoveError> {
        self.single_candidate(
            text,
            legal.iter().copied().filter(|m| self.san_names(san, m)),
        )
    }

    /// Whether `san` names the legal move `m`.
    fn san_names(&self, san: &San, m: &Move) -> bool {
        match *san {
            San::Castle(side) => m.castling_side() == Some(side),
            San::Normal {
                role,
                file,
                rank,
                to,
                promotion,
                ..
            } => {
                let (from, dest) = match *m {
                    Move::Switch { first, second, .. } => (first, second),
                    _ => match m.from_to() {
                        Some(squares) => squares,
                        None => return false,
                    },
                };
                self.role_on(from) == role
                    && dest == to
                    && m.promotion() == promotion
                    && file.is_none_or(|f| f == from.file())
                    && rank.is_none_or(|r| r == from.rank())
                    // A switch is always written with both its squares.
                    && (!matches!(m, Move::Switch { .. }) || (file.is_some() && rank.is_some()))
            }
            San::Put { role, to } => *m == Move::Put { role, to },
            San::Null => false,
        }
    }
}

/// Writes a pawn's promotion `a8Q` as `a8=Q`, as old files leave the `=` out.
fn promotion_with_equals(core: &mut String) {
    let bytes = core.as_bytes();
    let pawn_move = bytes.first().is_some_and(|b| (b'a'..=b'h').contains(b));
    let promotes = bytes.len() >= 3
        && matches!(bytes[bytes.len() - 1], b'Q' | b'R' | b'B' | b'N')
        && matches!(bytes[bytes.len() - 2], b'1' | b'8');
    if pawn_move && promotes {
        core.insert(core.len() - 1, '=');
    }
}

/// Splits a promotion suffix, `=Q` or `Q`, off the squares of the switch
/// alias `Sa7b8=Q`, as SAN writes it for the canonical form.
fn split_promotion(text: &str) -> Option<(&str, Option<Role>)> {
    let Some(&last) = text.as_bytes().last().filter(|b| b.is_ascii_alphabetic()) else {
        return Some((text, None));
    };
    let role = Role::from_char(char::from(last))
        .filter(|role| !matches!(role, Role::Pawn | Role::King))?;
    let squares = &text[..text.len() - 1];
    Some((squares.strip_suffix('=').unwrap_or(squares), Some(role)))
}

fn parse_square_pair(text: &str) -> Option<(Square, Square)> {
    // Checked on bytes: client text may hold multi-byte characters, and
    // splitting a `str` inside one panics.
    if text.len() != 4 || !text.is_ascii() {
        return None;
    }
    let (a, b) = text.split_at(2);
    Some((a.parse().ok()?, b.parse().ok()?))
}
