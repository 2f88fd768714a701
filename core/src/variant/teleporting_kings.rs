//! `teleporting-kings` (docs/spec/rules.md §3, Teleporting Kings): each king may, once
//! per game, move to a far empty square that is not attacked.

use shakmaty::{Bitboard, ByColor, Color, attacks};

use super::{Right, RuleSet};
use crate::{Move, MoveList, Position, PositionError};

#[derive(Debug)]
pub(crate) struct TeleportingKings;

impl RuleSet for TeleportingKings {
    const KEY: &'static str = "teleporting-kings";
    const PGN_NAME: &'static str = "Teleporting Kings";
    const PGN_NAME_960: &'static str = "Teleporting Kings 960";

    /// Candidates by rules 1, 3 and 4; rule 2 (the square is not attacked
    /// once the king has left) is the pipeline's king-safety test.
    fn add_extra_candidates(pos: &Position, common: &MoveList, candidates: &mut MoveList) {
        let Some(king) = pos.board().king_of(pos.turn()) else {
            return;
        };
        if !pos.has_right(pos.turn()) || pos.is_check() {
            return;
        }
        // Rule 4: a king move onto a legal castling destination is that castling.
        let castling_destinations: Bitboard = common
            .iter()
            .filter_map(|m| match *m {
                Move::Castle { king, rook } => Some(pos.castling_destinations(king, rook).0),
                _ => None,
            })
            .collect();
        let targets =
            !pos.board().occupied() & !attacks::king_attacks(king) & !castling_destinations;
        for to in targets {
            candidates.push(Move::Teleport { from: king, to });
        }
    }

    /// A teleport spends the teleport; nothing else does.
    fn spends_right(_pos: &Position, m: &Move) -> bool {
        matches!(m, Move::Teleport { .. })
    }

    fn right() -> Option<Right> {
        Some(Right::Teleport)
    }

    fn notation() -> &'static str {
        "A teleport is written as a king move: UCI e1c5, SAN Kc5. A king move onto a legal \
         castling destination is that castling. FEN field 7: Tt."
    }

    /// Teleports unspent.
    fn default_rights(_pos: &Position) -> ByColor<bool> {
        ByColor::new_with(|_| true)
    }

    /// A teleport spends every castling right of its side.
    fn validate(pos: &Position) -> Result<(), PositionError> {
        for color in Color::ALL {
            let rights = pos.castling_rooks() & Bitboard::from_rank(color.backrank());
            if let Some(square) = rights.first().filter(|_| !pos.has_right(color)) {
                return Err(PositionError::ContradictoryCastlingRight {
                    color,
                    square,
                    reason: "the teleport is spent, and a teleport spends every castling right",
                });
            }
        }
        Ok(())
    }
}
