//! `captive-kings` (docs/spec/rules.md §5, Captive Kings): the kings start on each
//! other's squares, immune to check until their first move of their own,
//! and race to their own first rank.

use shakmaty::{Bitboard, Board, ByColor, Color, Role, Square, attacks};

use super::{Right, RuleSet};
use crate::{Move, MoveList, Outcome, Position, PositionError, outcome::WinReason};

#[derive(Debug)]
pub(crate) struct CaptiveKings;

fn is_captive(pos: &Position, color: Color) -> bool {
    pos.has_right(color)
}

impl RuleSet for CaptiveKings {
    const KEY: &'static str = "captive-kings";
    const PGN_NAME: &'static str = "Captive Kings";
    const PGN_NAME_960: &'static str = "Captive Kings 960";

    /// Rule 1: a captive king is never in check.
    fn can_be_checked(pos: &Position, color: Color) -> bool {
        !is_captive(pos, color)
    }

    /// Rule 3: castling is made with the enemy king, captive on the
    /// castler's first rank.
    fn castling_king(pos: &Position, color: Color) -> Option<Square> {
        pos.board()
            .king_of(!color)
            .filter(|king| is_captive(pos, !color) && king.rank() == color.backrank())
    }

    /// Rule 3: no condition on attacked squares.
    fn castling_checks_attacks() -> bool {
        false
    }

    /// Rule 2: a captive king's first move is a step to an empty square;
    /// the pipeline then tests it as the free king it becomes.
    fn add_extra_candidates(pos: &Position, _common: &MoveList, candidates: &mut MoveList) {
        let color = pos.turn();
        let Some(king) = pos
            .board()
            .king_of(color)
            .filter(|_| is_captive(pos, color))
        else {
            return;
        };
        for to in attacks::king_attacks(king) & !pos.board().occupied() {
            candidates.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: None,
                to,
                promotion: None,
            });
        }
    }

    /// Rule 2: the king's first move of its own frees it. Castling moves
    /// the enemy king but is not its move.
    fn spends_right(_pos: &Position, m: &Move) -> bool {
        matches!(
            m,
            Move::Normal {
                role: Role::King,
                ..
            }
        )
    }

    /// Rule 4: the side that just moved wins when its free king stands on
    /// its own first rank.
    fn outcome(pos: &Position) -> Option<Outcome> {
        let mover = !pos.turn();
        let king = pos.board().king_of(mover)?;
        (!is_captive(pos, mover) && king.rank() == mover.backrank()).then_some(Outcome::Decisive {
            winner: mover,
            reason: WinReason::GoalRank,
        })
    }

    /// Rule 4: no draw by insufficient material; a lone king can still win the race.
    fn has_insufficient_material(_pos: &Position, _color: Color) -> bool {
        false
    }

    fn right() -> Option<Right> {
        Some(Right::Captivity)
    }

    fn notation() -> &'static str {
        "Castling is written from the enemy king's square: e1g1, O-O. A goal-rank win is marked \
         with #. FEN field 7: Cc (captive kings)."
    }

    /// A king on the enemy's first rank is captive in a fresh game.
    fn default_rights(pos: &Position) -> ByColor<bool> {
        ByColor::new_with(|color| {
            pos.board()
                .king_of(color)
                .is_some_and(|king| king.rank() == (!color).backrank())
        })
    }

    /// A captive king has only ever been moved by castling, along the
    /// enemy's first rank.
    fn validate(pos: &Position) -> Result<(), PositionError> {
        for color in Color::ALL {
            let off_rank = pos
                .board()
                .king_of(color)
                .is_some_and(|king| king.rank() != (!color).backrank());
            if is_captive(pos, color) && off_rank {
                return Err(PositionError::InvalidRight {
                    color,
                    reason: "a captive king stands on the enemy's first rank",
                });
            }
            // Rule 3: castling rights stand only while the enemy king is captive.
            let rights = pos.castling_rooks() & Bitboard::from_rank(color.backrank());
            if let Some(square) = rights.first().filter(|_| !is_captive(pos, !color)) {
                return Err(PositionError::ContradictoryCastlingRight {
                    color,
                    square,
                    reason: "in Captive Kings a side castles with the enemy king, which must still \
                             be captive, and it is free",
                });
            }
        }
        // Rule 4: the game ended when a free king reached its goal rank.
        let home = |color: Color| {
            !is_captive(pos, color)
                && pos
                    .board()
                    .king_of(color)
                    .is_some_and(|king| king.rank() == color.backrank())
        };
        let turn = pos.turn();
        if home(turn) && home(!turn) {
            return Err(PositionError::GameAlreadyEnded(
                "both free kings stand on their goal ranks: the game ended when the first arrived",
            ));
        }
        if home(turn) {
            return Err(PositionError::GameAlreadyEnded(turn.fold_wb(
                "White's free king stands on its goal rank with White to move: White won when it arrived",
                "Black's free king stands on its goal rank with Black to move: Black won when it arrived",
            )));
        }
        Ok(())
    }

    /// The kings exchange squares.
    fn set_up_array(board: &mut Board) {
        let kings = board.kings() & Bitboard::BACKRANKS;
        for square in kings {
            let king = board.remove_piece_at(square).expect("a king");
            board.set_piece_at(square, Role::King.of(!king.color));
        }
    }
}
