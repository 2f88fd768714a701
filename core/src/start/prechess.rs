//! The Pre-chess start (docs/spec/rules.md §6.3, Pre-chess placement): empty back ranks,
//! then sixteen placements, White first, onto one's own first rank, none of
//! which may leave the bishops unable to end on opposite colours.

use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, Rank, Role, Square};

use crate::{Move, MoveList, Position};

/// The roles a holding can contain, in the order FEN writes them.
pub(crate) const PLACED_ROLES: [Role; 5] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
];

/// What each side holds at the start: K Q R R B B N N.
pub(crate) fn full_holdings() -> ByColor<ByRole<u8>> {
    let side = ByRole {
        pawn: 0,
        knight: 2,
        bishop: 2,
        rook: 2,
        queen: 1,
        king: 1,
    };
    ByColor {
        white: side,
        black: side,
    }
}

/// Pawns on ranks 2 and 7, nothing else.
pub(crate) fn board() -> Board {
    let mut board = Board::empty();
    for color in Color::ALL {
        for square in Bitboard::from_rank(color.relative_rank(Rank::Second)) {
            board.set_piece_at(square, Role::Pawn.of(color));
        }
    }
    board
}

/// Every legal placement of the side to move.
pub(crate) fn add_placements(pos: &Position, moves: &mut MoveList) {
    let color = pos.turn();
    let holding = pos.holdings(color);
    let free = Bitboard::from_rank(color.backrank()) & !pos.board().occupied();
    for role in PLACED_ROLES
        .into_iter()
        .filter(|&role| *holding.get(role) > 0)
    {
        for to in free {
            if bishops_can_end_opposite(pos, color, role, to) {
                moves.push(Move::Put { role, to });
            }
        }
    }
}

/// Whether, after `role` is placed on `to`, the remaining units can still
/// be placed with `color`'s bishops on squares of both colours.
fn bishops_can_end_opposite(pos: &Position, color: Color, role: Role, to: Square) -> bool {
    let backrank = Bitboard::from_rank(color.backrank());
    let mut placed = pos.board().by_piece(Role::Bishop.of(color)) & backrank;
    let mut left = *pos.holdings(color).get(Role::Bishop);
    if role == Role::Bishop {
        placed.add(to);
        left -= 1;
    }
    if placed.count() + usize::from(left) != 2 {
        // Not the Pre-chess holding (a composed position): no constraint.
        return true;
    }
    let free_after = backrank & !pos.board().occupied() & !Bitboard::from(to);
    let mut missing = 0;
    for colour in [Bitboard::LIGHT_SQUARES, Bitboard::DARK_SQUARES] {
        if (placed & colour).is_empty() {
            missing += 1;
            if (free_after & colour).is_empty() {
                return false;
            }
        }
    }
    missing <= usize::from(left)
}
