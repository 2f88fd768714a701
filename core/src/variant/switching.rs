//! `switching` (docs/spec/rules.md §4, Switching): instead of a move, two adjacent own
//! units of different kinds may exchange squares.

use shakmaty::{Bitboard, Color, Rank, Role, attacks};

use super::RuleSet;
use crate::{Move, MoveList, Position};

#[derive(Debug)]
pub(crate) struct Switching;

impl RuleSet for Switching {
    const KEY: &'static str = "switching";
    const PGN_NAME: &'static str = "Switching";
    const PGN_NAME_960: &'static str = "Switching 960";

    /// Every switch by rules 1, 2 (none in check) and 4 (each promotion
    /// choice a move); the pipeline tests that the king is safe after.
    fn add_extra_candidates(pos: &Position, _common: &MoveList, candidates: &mut MoveList) {
        if pos.is_check() {
            return;
        }
        let board = pos.board();
        let ours = board.by_color(pos.turn());
        let last_rank = (!pos.turn()).backrank();
        for a in ours {
            let role_a = board.role_at(a).expect("own unit");
            // Each pair once: from its lower square.
            for b in attacks::king_attacks(a) & ours {
                let role_b = board.role_at(b).expect("own unit");
                if b < a || role_a == role_b {
                    continue;
                }
                let (first, second) = if role_a == Role::King { (b, a) } else { (a, b) };
                let pawn_lands_on = match (role_a, role_b) {
                    (Role::Pawn, _) => Some(b),
                    (_, Role::Pawn) => Some(a),
                    _ => None,
                };
                if pawn_lands_on.is_some_and(|square| square.rank() == last_rank) {
                    for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                        candidates.push(Move::Switch {
                            first,
                            second,
                            promotion: Some(promotion),
                        });
                    }
                } else {
                    candidates.push(Move::Switch {
                        first,
                        second,
                        promotion: None,
                    });
                }
            }
        }
    }

    fn notation() -> &'static str {
        "A switch names both squares, the non-king one first when a king takes part, otherwise \
         the lower: UCI b8c8 (either order accepted, unless king-first names a legal castling), \
         SAN Rb8c8; with promotion a7b8q, a7b8=Q. The form Sb8c8 is read too."
    }

    /// Rule 3: a pawn may stand on its own first rank, never on its last.
    fn pawn_squares(color: Color) -> Bitboard {
        !Bitboard::from_rank((!color).backrank())
    }

    /// Rule 3: a pawn steps two squares from its first rank as from its second.
    fn double_step_origins(color: Color) -> Bitboard {
        Bitboard::from_rank(color.backrank())
            | Bitboard::from_rank(color.relative_rank(Rank::Second))
    }
}
