//! The one move type that every rule set shares.

use arrayvec::ArrayVec;
use shakmaty::{CastlingSide, Role, Square};

/// A move of any rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece moves, maybe capturing, a pawn maybe promoting.
    Normal {
        role: Role,
        from: Square,
        capture: Option<Role>,
        to: Square,
        promotion: Option<Role>,
    },
    /// A pawn captures en passant, moving to the square the enemy pawn passed.
    EnPassant { from: Square, to: Square },
    /// Castling, named by the squares of the king and the rook that castle.
    Castle { king: Square, rook: Square },
}

/// Room for every legal move of any position of any rule set.
pub type MoveList = ArrayVec<Move, 512>;

impl Move {
    /// The square the moving unit leaves.
    pub const fn from(&self) -> Square {
        match *self {
            Move::Normal { from, .. } | Move::EnPassant { from, .. } => from,
            Move::Castle { king, .. } => king,
        }
    }

    /// The role of the unit that moves (the king, for castling).
    pub const fn role(&self) -> Role {
        match *self {
            Move::Normal { role, .. } => role,
            Move::EnPassant { .. } => Role::Pawn,
            Move::Castle { .. } => Role::King,
        }
    }

    /// The role of the captured unit, if any.
    pub const fn capture(&self) -> Option<Role> {
        match *self {
            Move::Normal { capture, .. } => capture,
            Move::EnPassant { .. } => Some(Role::Pawn),
            Move::Castle { .. } => None,
        }
    }

    pub const fn is_capture(&self) -> bool {
        self.capture().is_some()
    }

    pub const fn promotion(&self) -> Option<Role> {
        match *self {
            Move::Normal { promotion, .. } => promotion,
            _ => None,
        }
    }

    /// Whether the move resets the 50-move counter: a capture or a pawn move.
    pub const fn is_zeroing(&self) -> bool {
        matches!(self.role(), Role::Pawn) || self.is_capture()
    }

    /// The side a castling move castles to.
    pub fn castling_side(&self) -> Option<CastlingSide> {
        match *self {
            Move::Castle { king, rook } => Some(CastlingSide::from_queen_side(rook < king)),
            _ => None,
        }
    }
}
