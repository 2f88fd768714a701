//! Extended FEN (docs/spec/rules.md §8): the six FEN fields, X-FEN or Shredder-FEN
//! castling, then the rule set's own state.

use std::fmt;

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingSide, Color, File, Piece, Rank, Role, Square,
};

use crate::{
    Position, PositionError, Rules, StartKind, position::CastlingNotation, start::prechess,
};

/// A field of a FEN, named in parse errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenField {
    Placement,
    Turn,
    Castling,
    EnPassant,
    Halfmoves,
    Fullmoves,
    /// Field 7: the rule set's once-per-game rights.
    Rights,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Placement => "field 1 (piece placement)",
            FenField::Turn => "field 2 (side to move)",
            FenField::Castling => "field 3 (castling)",
            FenField::EnPassant => "field 4 (en passant)",
            FenField::Halfmoves => "field 5 (halfmove clock)",
            FenField::Fullmoves => "field 6 (move number)",
            FenField::Rights => "field 7 (variant rights)",
        })
    }
}

/// Why a FEN was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// A field that does not parse.
    #[error("invalid FEN {field}: {reason}")]
    Field { field: FenField, reason: String },
    /// Fewer than the four fields that every FEN needs, or more than the rule
    /// set has.
    #[error("a {rules} FEN has {min} to {max} fields, this one has {found}")]
    FieldCount {
        rules: Rules,
        min: usize,
        max: usize,
        found: usize,
    },
    /// A position that parses but cannot arise in a game.
    #[error("impossible position, {field}: {0}", field = .0.field())]
    Impossible(#[from] PositionError),
}

fn invalid(field: FenField, reason: impl Into<String>) -> FenError {
    FenError::Field {
        field,
        reason: reason.into(),
    }
}

impl Position {
    /// Parses an extended FEN of the rule set `rules`, refusing impossible
    /// positions. The halfmove and move-number fields may be left out.
    pub fn from_fen(rules: Rules, fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        let max = 6 + usize::from(rules.rights_letter().is_some());
        if fields.len() < 4 || fields.len() > max {
            return Err(FenError::FieldCount {
                rules,
                min: 4,
                max,
                found: fields.len(),
            });
        }

        let (board_text, holdings) = split_holdings(rules, fields[0])?;
        let mut pos = Position {
            rules,
            board: parse_placement(board_text)?,
            turn: parse_turn(fields[1])?,
            castling_rooks: Bitboard::EMPTY,
            ep_square: parse_ep_square(fields[3])?,
            halfmoves: parse_counter(fields.get(4), FenField::Halfmoves, 0)?,
            fullmoves: parse_counter(fields.get(5), FenField::Fullmoves, 1)?,
            rights: ByColor::new_with(|_| false),
            holdings,
            castling_notation: CastlingNotation::KingToDestination,
        };
        pos.rights = match (fields.get(6), rules.rights_letter()) {
            (Some(text), Some(letter)) => parse_rights(text, letter)?,
            _ => rules.default_rights(&pos),
        };
        if pos.fullmoves == 0 {
            return Err(invalid(FenField::Fullmoves, "the move number starts at 1"));
        }
        pos.castling_rooks = parse_castling(&pos, fields[2])?;
        pos.castling_notation = pos.notation_for_fen_start();
        pos.validate()?;
        Ok(pos)
    }

    /// The castling notation of a game started from this position as a
    /// `fen` start: the usual-array notation when every castling right
    /// belongs to a king on the e-file and rooks on the a- and h-files.
    pub(crate) fn notation_for_fen_start(&self) -> CastlingNotation {
        let usual = !self.rules.always_king_to_rook_castling()
            && Color::ALL.into_iter().all(|color| {
                let rights = self.castling_rooks & Bitboard::from_rank(color.backrank());
                rights.is_empty()
                    || self
                        .rules
                        .castling_king(self, color)
                        .is_some_and(|king| king.file() == File::E)
                        && rights
                            .into_iter()
                            .all(|rook| matches!(rook.file(), File::A | File::H))
            });
        if usual {
            CastlingNotation::KingToDestination
        } else {
            CastlingNotation::KingToRook
        }
    }

    /// The extended FEN of this position. The en-passant square is written
    /// only when an en-passant capture is legal.
    pub fn fen(&self) -> String {
        let ep = self
            .legal_ep_square()
            .map_or_else(|| "-".to_owned(), |sq| sq.to_string());
        let mut fen = format!(
            "{} {} {} {} {} {}",
            self.board_fen_with_holdings(),
            self.turn.char(),
            self.castling_fen(),
            ep,
            self.halfmoves,
            self.fullmoves
        );
        if let Some(letter) = self.rules.rights_letter() {
            fen.push(' ');
            fen.push_str(&rights_fen(self.rights, letter));
        }
        fen
    }

    /// The placement field, with the units still to place in brackets
    /// during the Pre-chess placement phase.
    fn board_fen_with_holdings(&self) -> String {
        let mut out = self.board.board_fen().to_string();
        if !self.is_placement_done() {
            out.push('[');
            for color in Color::ALL {
                for role in prechess::PLACED_ROLES {
                    for _ in 0..*self.holdings(color).get(role) {
                        out.push(role.of(color).char());
                    }
                }
            }
            out.push(']');
        }
        out
    }

    /// X-FEN castling: `K`/`Q` for the outermost rook on a side of the
    /// castling king, the rook's file where that would be ambiguous.
    fn castling_fen(&self) -> String {
        let mut out = String::new();
        for color in Color::ALL {
            let king = self.rules.castling_king(self, color);
            let rooks =
                self.board.by_piece(Role::Rook.of(color)) & Bitboard::from_rank(color.backrank());
            let rights = self.castling_rooks & Bitboard::from_rank(color.backrank());
            for rook in rights.into_iter().rev() {
                let letter = match king {
                    Some(king) if rook > king && rooks.last() == Some(rook) => 'k',
                    Some(king) if rook < king && rooks.first() == Some(rook) => 'q',
                    _ => rook.file().char(),
                };
                out.push(color.fold_wb(letter.to_ascii_uppercase(), letter));
            }
        }
        if out.is_empty() {
            out.push('-');
        }
        out
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

/// Splits `board[holdings]`; holdings belong to rule sets with a Pre-chess start.
fn split_holdings(rules: Rules, text: &str) -> Result<(&str, ByColor<ByRole<u8>>), FenError> {
    let field = FenField::Placement;
    let mut holdings = ByColor::<ByRole<u8>>::default();
    let Some((board, rest)) = text.split_once('[') else {
        return Ok((text, holdings));
    };
    let inside = rest
        .strip_suffix(']')
        .ok_or_else(|| invalid(field, "the holdings in brackets are not closed by `]`"))?;
    if !inside.is_empty() && !rules.starts().contains(&StartKind::Prechess) {
        return Err(invalid(
            field,
            format!("{rules} has no placement phase, so no holdings"),
        ));
    }
    for ch in inside.chars() {
        let piece = Piece::from_char(ch)
            .filter(|piece| piece.role != Role::Pawn)
            .ok_or_else(|| {
                invalid(
                    field,
                    format!("`{ch}` in the holdings is not a piece to place"),
                )
            })?;
        let count = holdings.get_mut(piece.color).get_mut(piece.role);
        *count = count.saturating_add(1);
    }
    Ok((board, holdings))
}

fn parse_placement(text: &str) -> Result<Board, FenError> {
    let field = FenField::Placement;
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(invalid(
            field,
            format!("{} ranks instead of 8", ranks.len()),
        ));
    }
    let mut board = Board::empty();
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - row as u32);
        let mut file = 0u32;
        for ch in rank_text.chars() {
            if let Some(skip) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += skip;
            } else if let Some(piece) = Piece::from_char(ch) {
                if file < 8 {
                    board.set_piece_at(Square::from_coords(File::new(file), rank), piece);
                }
                file += 1;
            } else {
                return Err(invalid(
                    field,
                    format!(
                        "`{ch}` on rank {} is neither a piece nor a count of empty squares",
                        rank.char()
                    ),
                ));
            }
            if file > 8 {
                return Err(invalid(
                    field,
                    format!("rank {} has more than 8 squares", rank.char()),
                ));
            }
        }
        if file < 8 {
            return Err(invalid(
                field,
                format!("rank {} has {file} squares instead of 8", rank.char()),
            ));
        }
    }
    Ok(board)
}

fn parse_turn(text: &str) -> Result<Color, FenError> {
    match text {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => Err(invalid(
            FenField::Turn,
            format!("`{text}` is not `w` or `b`"),
        )),
    }
}

fn parse_ep_square(text: &str) -> Result<Option<Square>, FenError> {
    if text == "-" {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| {
        invalid(
            FenField::EnPassant,
            format!("`{text}` is not `-` or a square"),
        )
    })
}

fn parse_counter(text: Option<&&str>, field: FenField, default: u32) -> Result<u32, FenError> {
    match text {
        None => Ok(default),
        Some(text) => text
            .parse()
            .map_err(|_| invalid(field, format!("`{text}` is not a non-negative number"))),
    }
}

/// Castling rights as X-FEN letters (`KQkq`) or Shredder-FEN rook files.
fn parse_castling(pos: &Position, text: &str) -> Result<Bitboard, FenError> {
    let field = FenField::Castling;
    let mut rooks = Bitboard::EMPTY;
    if text == "-" {
        return Ok(rooks);
    }
    for ch in text.chars() {
        let color = Color::from_white(ch.is_ascii_uppercase());
        let backrank = color.backrank();
        let square = match ch.to_ascii_lowercase() {
            side @ ('k' | 'q') => {
                let side = CastlingSide::from_king_side(side == 'k');
                outermost_rook(pos, color, side).ok_or_else(|| {
                    invalid(field, format!("`{ch}`: {color:?} has no rook on the {side:?} of a king that could castle"))
                })?
            }
            letter @ 'a'..='h' => {
                Square::from_coords(File::from_char(letter).expect("a to h"), backrank)
            }
            _ => return Err(invalid(field, format!("`{ch}` is not a castling right"))),
        };
        if rooks.contains(square) {
            return Err(invalid(
                field,
                format!("the right for {square} is given twice"),
            ));
        }
        rooks.add(square);
    }
    Ok(rooks)
}

/// Field 7: the right's letter upper-case for White, lower-case for Black.
fn parse_rights(text: &str, letter: char) -> Result<ByColor<bool>, FenError> {
    let mut rights = ByColor::new_with(|_| false);
    if text == "-" {
        return Ok(rights);
    }
    for ch in text.chars() {
        let color = match ch {
            _ if ch == letter.to_ascii_uppercase() => Color::White,
            _ if ch == letter.to_ascii_lowercase() => Color::Black,
            _ => {
                let (upper, lower) = (letter.to_ascii_uppercase(), letter.to_ascii_lowercase());
                return Err(invalid(
                    FenField::Rights,
                    format!("`{ch}` is not `{upper}`, `{lower}` or `-`"),
                ));
            }
        };
        if std::mem::replace(rights.get_mut(color), true) {
            return Err(invalid(FenField::Rights, format!("`{ch}` is given twice")));
        }
    }
    Ok(rights)
}

fn rights_fen(rights: ByColor<bool>, letter: char) -> String {
    let mut out = String::new();
    if rights.white {
        out.push(letter.to_ascii_uppercase());
    }
    if rights.black {
        out.push(letter.to_ascii_lowercase());
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// The rook that `K` or `Q` names: the outermost on that side of the king
/// that castles, or, where none may castle now, of any king on that rank,
/// so that validation can say why the right cannot stand.
fn outermost_rook(pos: &Position, color: Color, side: CastlingSide) -> Option<Square> {
    let backrank = Bitboard::from_rank(color.backrank());
    let king = pos
        .rules
        .castling_king(pos, color)
        .or_else(|| (pos.board.kings() & backrank).first())?;
    let rooks = pos.board.by_piece(Role::Rook.of(color)) & backrank;
    match side {
        CastlingSide::KingSide => rooks.last().filter(|&rook| rook > king),
        CastlingSide::QueenSide => rooks.first().filter(|&rook| rook < king),
    }
}
