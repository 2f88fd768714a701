//! `bunker-leap` (docs/spec/rules.md §6, King to Bunker Leap): castling to b/c and g/f,
//! only with the farther rook on a side, and the king's once-per-game leap
//! along its first rank to the b- or g-file.

use shakmaty::{Bitboard, ByColor, CastlingSide, Color, File, Role, Square, attacks};

use super::{Right, RuleSet};
use crate::{Move, MoveList, Position, PositionError, StartKind};

#[derive(Debug)]
pub(crate) struct BunkerLeap;

fn may_leap(pos: &Position, color: Color) -> bool {
    pos.has_right(color)
}

/// Whether `rook` is the farthest of `color`'s rooks on its first rank on
/// its side of `king`.
fn is_farthest_rook(pos: &Position, color: Color, king: Square, rook: Square) -> bool {
    let rooks = pos.board().by_piece(Role::Rook.of(color)) & Bitboard::from_rank(color.backrank());
    let farthest = if rook < king {
        rooks.first()
    } else {
        rooks.last()
    };
    farthest == Some(rook)
}

impl RuleSet for BunkerLeap {
    const KEY: &'static str = "bunker-leap";
    const PGN_NAME: &'static str = "King to Bunker Leap";
    const PGN_NAME_960: &'static str = "King to Bunker Leap";
    const PGN_ALIASES: &'static [&'static str] = &["bunker leap"];

    fn castling_files(side: CastlingSide) -> (File, File) {
        match side {
            CastlingSide::KingSide => (File::G, File::F),
            CastlingSide::QueenSide => (File::B, File::C),
        }
    }

    /// When both rooks stand on one side of the king, only the farther castles.
    fn may_castle_with(pos: &Position, king: Square, rook: Square) -> bool {
        is_farthest_rook(pos, pos.turn(), king, rook)
    }

    /// The nearer rook never may castle: its right is void from the moment
    /// another rook of its side stands beyond it, so that positions that
    /// differ only by it are the same for repetition.
    fn castling_rights_kept(pos: &Position) -> Bitboard {
        let mut kept = pos.castling_rooks();
        for color in Color::ALL {
            let Some(king) = pos.board().king_of(color) else {
                continue;
            };
            for rook in kept & Bitboard::from_rank(color.backrank()) {
                if !is_farthest_rook(pos, color, king, rook) {
                    kept.discard(rook);
                }
            }
        }
        kept
    }

    /// The leap, by rules 1 to 4; the pipeline tests the king on arrival again.
    fn add_extra_candidates(pos: &Position, common: &MoveList, candidates: &mut MoveList) {
        let color = pos.turn();
        let Some(king) = pos.board().king_of(color) else {
            return;
        };
        if !may_leap(pos, color) || king.rank() != color.backrank() || pos.is_check() {
            return;
        }
        let occupied_without_king = pos.board().occupied().without(king);
        for file in [File::B, File::G] {
            let to = Square::from_coords(file, color.backrank());
            // Rule 4: a step to a neighbouring square is a king move.
            if to == king || king.distance(to) == 1 {
                continue;
            }
            let between = attacks::between(king, to);
            let path = between.with(to);
            let crosses_enemy = (between & pos.board().by_color(!color)).any();
            let attacked = path
                .into_iter()
                .any(|sq| pos.is_attacked(sq, !color, occupied_without_king));
            // Rule 4: a leap giving the same position as a legal castling is that castling.
            let is_castling = common.iter().any(|m| match *m {
                Move::Castle { king, rook } => pos.castling_destinations(king, rook) == (to, rook),
                _ => false,
            });
            if !pos.board().occupied().contains(to) && !crosses_enemy && !attacked && !is_castling {
                candidates.push(Move::Leap { from: king, to });
            }
        }
    }

    /// A king that moves, castles or leaps has moved: the leap is gone.
    fn spends_right(_pos: &Position, m: &Move) -> bool {
        matches!(
            m,
            Move::Normal {
                role: Role::King,
                ..
            } | Move::Castle { .. }
                | Move::Leap { .. }
        )
    }

    fn right() -> Option<Right> {
        Some(Right::Leap)
    }

    /// A king on its own first rank may leap in a fresh game.
    fn default_rights(pos: &Position) -> ByColor<bool> {
        ByColor::new_with(|color| {
            pos.board()
                .king_of(color)
                .is_some_and(|king| king.rank() == color.backrank())
        })
    }

    fn validate(pos: &Position) -> Result<(), PositionError> {
        for color in Color::ALL {
            let home = pos
                .board()
                .king_of(color)
                .is_some_and(|king| king.rank() == color.backrank());
            if may_leap(pos, color) && !home {
                return Err(PositionError::InvalidRight {
                    color,
                    reason: "only a king on its own first rank may leap",
                });
            }
            let rights = pos.castling_rooks() & Bitboard::from_rank(color.backrank());
            let (Some(square), Some(king)) = (rights.first(), pos.board().king_of(color)) else {
                continue;
            };
            if !may_leap(pos, color) {
                return Err(PositionError::ContradictoryCastlingRight {
                    color,
                    square,
                    reason: "the leap is spent, so the king has moved and cannot castle",
                });
            }
            if let Some(square) = rights.into_iter().find(|&rook| {
                pos.board().by_piece(Role::Rook.of(color)).contains(rook)
                    && !is_farthest_rook(pos, color, king, rook)
            }) {
                return Err(PositionError::ContradictoryCastlingRight {
                    color,
                    square,
                    reason: "only the farther of two rooks on one side of the king may castle",
                });
            }
        }
        Ok(())
    }

    fn starts() -> &'static [StartKind] {
        &[
            StartKind::Shuffle,
            StartKind::Prechess,
            StartKind::Standard,
            StartKind::Fen,
        ]
    }

    fn always_king_to_rook_castling() -> bool {
        true
    }

    fn notation() -> &'static str {
        "Castling is the king to the rook (e1h1), O-O on the h-side and O-O-O on the a-side. The \
         leap is a king move: UCI e1b1, SAN Kb1. Pre-chess placements: K@e1, holdings in FEN \
         brackets. FEN field 7: Ll."
    }
}
