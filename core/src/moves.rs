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
    /// Castling, named by the squares of the king and the rook that castle
    /// (in Captive Kings the king is the enemy's).
    Castle { king: Square, rook: Square },
    /// Teleporting Kings: the king's once-per-game move to a far square.
    Teleport { from: Square, to: Square },
    /// King to Bunker Leap: the king's once-per-game leap along its first
    /// rank to the b- or g-file.
    Leap { from: Square, to: Square },
    /// Switching: two adjacent own units exchange squares. `first` is the
    /// square written first (docs/spec/rules.md §7, notation): the non-king one when a
    /// king takes part, otherwise the lower one. `promotion` is what a pawn
    /// that lands on its last rank becomes.
    Switch {
        first: Square,
        second: Square,
        promotion: Option<Role>,
    },
    /// Pre-chess: a unit from the mover's holding placed on a square.
    Put { role: Role, to: Square },
}

/// What kind of move a move is, as a player would name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A unit moves (a pawn maybe promoting), capturing or not.
    Normal,
    EnPassant,
    Castling,
    Teleport,
    Leap,
    Switch,
    Placement,
}

impl MoveKind {
    /// A stable snake_case name, for the API.
    pub const fn key(self) -> &'static str {
        match self {
            MoveKind::Normal => "normal",
            MoveKind::EnPassant => "en_passant",
            MoveKind::Castling => "castling",
            MoveKind::Teleport => "teleport",
            MoveKind::Leap => "leap",
            MoveKind::Switch => "switch",
            MoveKind::Placement => "placement",
        }
    }
}

/// Room for every legal move of any position of any rule set.
pub type MoveList = ArrayVec<Move, 512>;

impl Move {
    pub const fn kind(&self) -> MoveKind {
        match self {
            Move::Normal { .. } => MoveKind::Normal,
            Move::EnPassant { .. } => MoveKind::EnPassant,
            Move::Castle { .. } => MoveKind::Castling,
            Move::Teleport { .. } => MoveKind::Teleport,
            Move::Leap { .. } => MoveKind::Leap,
            Move::Switch { .. } => MoveKind::Switch,
            Move::Put { .. } => MoveKind::Placement,
        }
    }

    /// The origin and destination of a move that carries one unit from one
    /// square to another: not castling, a switch or a placement.
    pub const fn from_to(&self) -> Option<(Square, Square)> {
        match *self {
            Move::Normal { from, to, .. }
            | Move::EnPassant { from, to }
            | Move::Teleport { from, to }
            | Move::Leap { from, to } => Some((from, to)),
            Move::Castle { .. } | Move::Switch { .. } | Move::Put { .. } => None,
        }
    }

    /// The role of the captured unit, if any.
    pub const fn capture(&self) -> Option<Role> {
        match *self {
            Move::Normal { capture, .. } => capture,
            Move::EnPassant { .. } => Some(Role::Pawn),
            _ => None,
        }
    }

    pub const fn is_capture(&self) -> bool {
        self.capture().is_some()
    }

    pub const fn promotion(&self) -> Option<Role> {
        match *self {
            Move::Normal { promotion, .. } | Move::Switch { promotion, .. } => promotion,
            _ => None,
        }
    }

    /// Whether the move resets the 50-move counter: a capture, a pawn
    /// move, a promotion (a switch is otherwise reversible) or a placement.
    pub const fn is_zeroing(&self) -> bool {
        match *self {
            Move::Normal { role, capture, .. } => matches!(role, Role::Pawn) || capture.is_some(),
            Move::EnPassant { .. } | Move::Put { .. } => true,
            Move::Switch { promotion, .. } => promotion.is_some(),
            Move::Castle { .. } | Move::Teleport { .. } | Move::Leap { .. } => false,
        }
    }

    /// The side a castling move castles to.
    pub fn castling_side(&self) -> Option<CastlingSide> {
        match *self {
            Move::Castle { king, rook } => Some(CastlingSide::from_queen_side(rook < king)),
            _ => None,
        }
    }
}
