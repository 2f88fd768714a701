//! A position of any rule set: the board and every right that decides what
//! may happen next.

use shakmaty::{Bitboard, Board, ByColor, ByRole, CastlingSide, Color, Role, Square, attacks};

use crate::{
    FenField, Move, MoveList, Outcome, Rules, Wanted,
    outcome::{CLAIMABLE_REPETITIONS, DrawReason},
};

/// Plies without a capture or a pawn move after which the player to move
/// may claim a draw (the 50-move rule), and after which the game is drawn
/// at once (the 75-move rule): docs/spec/rules.md §2.3, ends of a game.
const FIFTY_MOVES_PLIES: u32 = 100;
const SEVENTY_FIVE_MOVES_PLIES: u32 = 150;

/// How castling moves are written in UCI (docs/spec/rules.md §7, notation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingNotation {
    /// King to its destination, `e1g1`: games from the usual array.
    KingToDestination,
    /// King to the rook's square, `e1h1`: every other start.
    KingToRook,
}

/// A position: board, side to move, castling rights, en-passant square,
/// move counters, under one rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub(crate) rules: Rules,
    pub(crate) board: Board,
    pub(crate) turn: Color,
    /// Squares of the rooks that may still castle.
    pub(crate) castling_rooks: Bitboard,
    /// The square a pawn passed on the last move's double step, whether or
    /// not a capture there is legal.
    pub(crate) ep_square: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    /// The rule set's once-per-game right of each side (docs/spec/rules.md §8,
    /// extended FEN, field 7): the teleport in Teleporting Kings, captivity in
    /// Captive Kings, the leap in King to Bunker Leap. Unused elsewhere.
    pub(crate) rights: ByColor<bool>,
    /// Units still to place in the Pre-chess placement phase.
    pub(crate) holdings: ByColor<ByRole<u8>>,
    pub(crate) castling_notation: CastlingNotation,
}

/// Why a position that parses is impossible.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("{0:?} has no king")]
    MissingKing(Color),
    #[error("{0:?} has more than one king")]
    TooManyKings(Color),
    #[error("a {color:?} pawn stands on {square}, where it cannot be")]
    PawnOnImpossibleSquare { color: Color, square: Square },
    #[error("{color:?} has {count} units, more than the 16 of a game")]
    TooManyUnits { color: Color, count: usize },
    #[error("{color:?} has {count} pawns, more than 8")]
    TooManyPawns { color: Color, count: usize },
    #[error("the kings stand next to each other")]
    KingsAdjacent,
    #[error("the side not to move ({0:?}) is in check")]
    OppositeCheck(Color),
    #[error("the side to move is in check from {0} units, which no legal move can cause")]
    TooManyCheckers(usize),
    #[error("the side to move is in check from two knights, which no legal move can cause")]
    DoubleKnightCheck,
    #[error(
        "{color:?} has {promoted} pieces beyond the initial set and {pawns} pawns: more than the {most} promotions its missing pawns could have made",
        most = 8 - pawns
    )]
    UnexplainedPromotions {
        color: Color,
        promoted: usize,
        pawns: usize,
    },
    #[error(
        "castling right for {square}, where no {color:?} rook stands beside a king that could castle with it"
    )]
    InvalidCastlingRight { color: Color, square: Square },
    #[error("{color:?} has more than one castling right on one side of the king")]
    DuplicateCastlingRight { color: Color },
    #[error("castling right for {square} contradicts the rules: {reason}")]
    ContradictoryCastlingRight {
        color: Color,
        square: Square,
        reason: &'static str,
    },
    #[error("en-passant square {0} is not the square a pawn just passed")]
    InvalidEnPassant(Square),
    #[error("{color:?} cannot hold that right here: {reason}")]
    InvalidRight { color: Color, reason: &'static str },
    #[error("the units to place do not fit the empty squares of the first ranks")]
    InvalidHoldings,
    #[error("{0}")]
    GameAlreadyEnded(&'static str),
}

impl PositionError {
    /// The FEN field that holds what is wrong.
    pub const fn field(&self) -> FenField {
        match self {
            PositionError::InvalidCastlingRight { .. }
            | PositionError::DuplicateCastlingRight { .. }
            | PositionError::ContradictoryCastlingRight { .. } => FenField::Castling,
            PositionError::InvalidEnPassant(_) => FenField::EnPassant,
            PositionError::InvalidRight { .. } => FenField::Rights,
            PositionError::OppositeCheck(_) | PositionError::GameAlreadyEnded(_) => FenField::Turn,
            PositionError::MissingKing(_)
            | PositionError::TooManyKings(_)
            | PositionError::PawnOnImpossibleSquare { .. }
            | PositionError::TooManyUnits { .. }
            | PositionError::TooManyPawns { .. }
            | PositionError::KingsAdjacent
            | PositionError::TooManyCheckers(_)
            | PositionError::DoubleKnightCheck
            | PositionError::UnexplainedPromotions { .. }
            | PositionError::InvalidHoldings => FenField::Placement,
        }
    }
}

impl Position {
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Squares of the rooks that may still castle, for both sides.
    pub const fn castling_rooks(&self) -> Bitboard {
        self.castling_rooks
    }

    /// Plies since the last capture or pawn move.
    pub const fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The FEN move number.
    pub const fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// Whether `color` still holds the rule set's once-per-game right: the
    /// teleport, captivity or the leap.
    pub const fn has_right(&self, color: Color) -> bool {
        *self.rights.get(color)
    }

    pub const fn castling_notation(&self) -> CastlingNotation {
        self.castling_notation
    }

    /// Overrides how castling moves are written in UCI, as the game's start
    /// decides (docs/spec/rules.md §7, notation).
    pub fn with_castling_notation(mut self, notation: CastlingNotation) -> Position {
        self.castling_notation = notation;
        self
    }

    pub(crate) fn us(&self) -> Bitboard {
        self.board.by_color(self.turn)
    }

    pub(crate) fn them(&self) -> Bitboard {
        self.board.by_color(!self.turn)
    }

    pub(crate) fn our(&self, role: Role) -> Bitboard {
        self.board.by_piece(role.of(self.turn))
    }

    /// The units giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        self.checkers_of(self.turn)
    }

    /// The units giving check to `color`'s king.
    pub(crate) fn checkers_of(&self, color: Color) -> Bitboard {
        match self.board.king_of(color) {
            Some(king) if self.rules.can_be_checked(self, color) => {
                self.board.attacks_to(king, !color, self.board.occupied())
            }
            _ => Bitboard::EMPTY,
        }
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// The en-passant square, if an en-passant capture is legal now.
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let mut moves = MoveList::new();
        self.wanted_moves_into(Wanted::to(ep), &mut moves);
        moves
            .iter()
            .any(|m| matches!(m, Move::EnPassant { .. }))
            .then_some(ep)
    }

    /// Where the king and the rook of a castling move land (docs/spec/rules.md §2.2 and §6.1: the
    /// g- and f-files or c- and d-files; b- and c-files for the a-side in
    /// King to Bunker Leap).
    pub fn castling_destinations(&self, king: Square, rook: Square) -> (Square, Square) {
        let side = CastlingSide::from_queen_side(rook < king);
        let (king_file, rook_file) = self.rules.castling_files(side);
        let rank = king.rank();
        (
            Square::from_coords(king_file, rank),
            Square::from_coords(rook_file, rank),
        )
    }

    /// Plays a move without checking that it is legal.
    pub fn play_unchecked(&mut self, m: Move) {
        let color = self.turn;
        // Before the right is spent: captivity decides who castles with whom.
        if let Some(king) = self.moving_king(&m) {
            self.discard_castling_with(king);
        }
        if self.rules.spends_right(self, &m) {
            *self.rights.get_mut(color) = false;
        }
        self.ep_square = None;
        self.halfmoves = if m.is_zeroing() {
            0
        } else {
            self.halfmoves.saturating_add(1)
        };

        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                if role == Role::Pawn && from.file() == to.file() && from.distance(to) == 2 {
                    self.ep_square = Some(Square::new((u32::from(from) + u32::from(to)) / 2));
                }
                self.board.discard_piece_at(from);
                self.board
                    .set_piece_at(to, promotion.unwrap_or(role).of(color));
            }
            Move::EnPassant { from, to } => {
                self.board
                    .discard_piece_at(Square::from_coords(to.file(), from.rank()));
                self.board.discard_piece_at(from);
                self.board.set_piece_at(to, Role::Pawn.of(color));
            }
            Move::Castle { king, rook } => {
                let (king_to, rook_to) = self.castling_destinations(king, rook);
                let king_piece = self.board.remove_piece_at(king).expect("castling king");
                let rook_piece = self.board.remove_piece_at(rook).expect("castling rook");
                self.board.set_piece_at(king_to, king_piece);
                self.board.set_piece_at(rook_to, rook_piece);
                // The castler's rights are spent, whichever king castled.
                self.castling_rooks &= !Bitboard::from_rank(color.backrank());
            }
            Move::Teleport { from, to } | Move::Leap { from, to } => {
                self.board.discard_piece_at(from);
                self.board.set_piece_at(to, Role::King.of(color));
            }
            Move::Switch {
                first,
                second,
                promotion,
            } => {
                let a = self.board.remove_piece_at(first).expect("first unit");
                let b = self.board.remove_piece_at(second).expect("second unit");
                self.board.set_piece_at(second, a);
                self.board.set_piece_at(first, b);
                if let Some(role) = promotion {
                    let promoted = (Bitboard::from(first) | Bitboard::from(second))
                        & self.board.pawns()
                        & Bitboard::from_rank((!color).backrank());
                    for square in promoted {
                        self.board.set_piece_at(square, role.of(color));
                    }
                }
            }
            Move::Put { role, to } => {
                *self.holdings.get_mut(color).get_mut(role) -= 1;
                self.board.set_piece_at(to, role.of(color));
                if self.is_placement_done() {
                    self.castling_rooks = self.initial_castling_rooks();
                    self.rights = self.rules.default_rights(self);
                }
            }
        }
        // A rook that moves, is switched or is captured loses its right.
        if let Some((from, to)) = m.from_to().or(match m {
            Move::Switch { first, second, .. } => Some((first, second)),
            _ => None,
        }) {
            self.castling_rooks &= !(Bitboard::from(from) | Bitboard::from(to));
        }

        self.castling_rooks = self.rules.castling_rights_kept(self);

        if color.is_black() {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !color;
    }

    /// The square of the king that `m` moves by itself, if any: castling
    /// is not counted here, it spends the castler's rights itself.
    fn moving_king(&self, m: &Move) -> Option<Square> {
        match *m {
            Move::Normal {
                role: Role::King,
                from,
                ..
            }
            | Move::Teleport { from, .. }
            | Move::Leap { from, .. } => Some(from),
            Move::Switch { first, second, .. } => [first, second]
                .into_iter()
                .find(|&sq| self.board.role_at(sq) == Some(Role::King)),
            _ => None,
        }
    }

    /// Drops the castling rights of whichever side castles with the king
    /// on `king`, which is about to move.
    fn discard_castling_with(&mut self, king: Square) {
        for color in Color::ALL {
            if self.rules.castling_king(self, color) == Some(king) {
                self.castling_rooks &= !Bitboard::from_rank(color.backrank());
            }
        }
    }

    /// Whether every unit of the placement phase stands on the board.
    pub fn is_placement_done(&self) -> bool {
        self.holdings
            .iter()
            .all(|side| side.iter().all(|&n| n == 0))
    }

    /// The units `color` still has to place.
    pub fn holdings(&self, color: Color) -> &ByRole<u8> {
        self.holdings.get(color)
    }

    /// The castling rights of a fresh array: for each king on its first
    /// rank, the outermost rook of its side on each side of it.
    pub(crate) fn initial_castling_rooks(&self) -> Bitboard {
        let mut rooks = Bitboard::EMPTY;
        for color in Color::ALL {
            let Some(king) = self.rules.castling_king(self, color) else {
                continue;
            };
            let candidates =
                self.board.by_piece(Role::Rook.of(color)) & Bitboard::from_rank(color.backrank());
            rooks.extend(candidates.first().filter(|&rook| rook < king));
            rooks.extend(candidates.last().filter(|&rook| rook > king));
        }
        rooks
    }

    /// Whether `m`, played here, leaves the mover's king out of check: the
    /// legality test of the moves a rule set adds.
    pub(crate) fn is_safe_after(&self, m: Move) -> bool {
        let mut after = self.clone();
        after.play_unchecked(m);
        let kings = after.board.kings();
        let kings_adjacent = kings
            .first()
            .is_some_and(|king| (attacks::king_attacks(king) & kings).any());
        after.checkers_of(self.turn).is_empty() && !kings_adjacent
    }

    /// Whether `color` lacks mating material (docs/spec/rules.md §2.3, insufficient material).
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        self.rules.has_insufficient_material(self, color)
    }

    /// Whether neither side can mate: the game is drawn at once.
    pub fn is_insufficient_material(&self) -> bool {
        self.has_insufficient_material(Color::White) && self.has_insufficient_material(Color::Black)
    }

    /// The outcome that this position alone decides: checkmate, stalemate,
    /// insufficient material, the 75-move rule. Repetitions need the game's
    /// history: see [`crate::Game::outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome_among(&self.legal_moves())
    }

    /// The outcome, given the legal moves `legal` of this position.
    pub fn outcome_among(&self, legal: &MoveList) -> Option<Outcome> {
        if let Some(outcome) = self.rules.outcome(self) {
            return Some(outcome);
        }
        if legal.is_empty() {
            return Some(if self.is_check() {
                Outcome::checkmate(!self.turn)
            } else {
                Outcome::Draw(DrawReason::Stalemate)
            });
        }
        self.draw_by_material_or_moves()
    }

    /// Whether the position may have an outcome beside checkmate and
    /// stalemate: one that needs no legal moves generated to be seen. Where
    /// there is none, the game goes on exactly when a legal move exists.
    pub fn may_have_outcome_beside_mate(&self) -> bool {
        self.rules.outcome(self).is_some() || self.draw_by_material_or_moves().is_some()
    }

    fn draw_by_material_or_moves(&self) -> Option<Outcome> {
        if self.is_insufficient_material() {
            return Some(Outcome::Draw(DrawReason::InsufficientMaterial));
        }
        if self.halfmoves >= SEVENTY_FIVE_MOVES_PLIES {
            return Some(Outcome::Draw(DrawReason::SeventyFiveMoves));
        }
        None
    }

    /// Whether the player to move may claim a draw by the 50-move rule.
    pub fn can_claim_fifty_moves(&self) -> bool {
        self.halfmoves >= FIFTY_MOVES_PLIES
    }

    /// The draw the player to move may claim, the position having stood
    /// `occurrences` times in its game, this time included (docs/spec/rules.md §2.3:
    /// threefold repetition, the 50-move rule).
    pub fn claimable_draw(&self, occurrences: usize) -> Option<DrawReason> {
        if occurrences >= CLAIMABLE_REPETITIONS {
            Some(DrawReason::ThreefoldRepetition)
        } else if self.can_claim_fifty_moves() {
            Some(DrawReason::FiftyMoves)
        } else {
            None
        }
    }

    /// Why no draw can be claimed, for a player who asked.
    pub fn claim_refusal(&self, occurrences: usize) -> String {
        format!(
            "no draw to claim: the position has stood {occurrences} time(s) ({CLAIMABLE_REPETITIONS} \
             needed) and {} plies passed without a capture or a pawn move ({FIFTY_MOVES_PLIES} needed)",
            self.halfmoves
        )
    }

    /// Checks the position against the rules that every reachable one obeys.
    pub(crate) fn validate(&self) -> Result<(), PositionError> {
        for color in Color::ALL {
            let kings = self.board.by_piece(Role::King.of(color)).count()
                + usize::from(*self.holdings(color).get(Role::King));
            if kings == 0 {
                return Err(PositionError::MissingKing(color));
            }
            if kings > 1 {
                return Err(PositionError::TooManyKings(color));
            }
            // Bounds that also keep every move list within its capacity.
            let held: usize = self.holdings(color).iter().map(|&n| usize::from(n)).sum();
            let count = self.board.by_color(color).count() + held;
            if count > 16 {
                return Err(PositionError::TooManyUnits { color, count });
            }
            let pawns = self.board.by_piece(Role::Pawn.of(color)).count();
            if pawns > 8 {
                return Err(PositionError::TooManyPawns {
                    color,
                    count: pawns,
                });
            }
            let misplaced =
                self.board.by_piece(Role::Pawn.of(color)) & !self.rules.pawn_squares(color);
            if let Some(square) = misplaced.first() {
                return Err(PositionError::PawnOnImpossibleSquare { color, square });
            }
            self.validate_promotions(color, pawns)?;
        }
        // The rule set's own state first: it explains a castling right that
        // contradicts it better than the common test below does.
        self.rules.validate(self)?;
        for color in Color::ALL {
            self.validate_castling(color)?;
        }
        if let (Some(white), Some(black)) = (
            self.board.king_of(Color::White),
            self.board.king_of(Color::Black),
        ) && white.distance(black) <= 1
        {
            return Err(PositionError::KingsAdjacent);
        }
        if self.checkers_of(!self.turn).any() {
            return Err(PositionError::OppositeCheck(!self.turn));
        }
        let checkers = self.checkers();
        if checkers.count() > 2 {
            return Err(PositionError::TooManyCheckers(checkers.count()));
        }
        // A move gives check with the unit it moves and at most one slider
        // it uncovers; knights are never uncovered.
        if (checkers & self.board.knights()).more_than_one() {
            return Err(PositionError::DoubleKnightCheck);
        }
        if let Some(ep) = self.ep_square {
            self.validate_ep_square(ep)?;
        }
        self.validate_holdings()
    }

    /// Each piece beyond the initial set (one queen, two rooks, bishops and
    /// knights) is a promotion, and each promotion costs a pawn. Units still
    /// to place count as pieces.
    fn validate_promotions(&self, color: Color, pawns: usize) -> Result<(), PositionError> {
        let promoted: usize = [
            (Role::Queen, 1),
            (Role::Rook, 2),
            (Role::Bishop, 2),
            (Role::Knight, 2),
        ]
        .into_iter()
        .map(|(role, initial)| {
            let count = self.board.by_piece(role.of(color)).count()
                + usize::from(*self.holdings(color).get(role));
            count.saturating_sub(initial)
        })
        .sum();
        if promoted + pawns > 8 {
            return Err(PositionError::UnexplainedPromotions {
                color,
                promoted,
                pawns,
            });
        }
        Ok(())
    }

    /// In the placement phase, White places first and the sides alternate,
    /// and each side's units fill exactly the empty squares of its first rank.
    fn validate_holdings(&self) -> Result<(), PositionError> {
        if self.is_placement_done() {
            return Ok(());
        }
        let count = |color: Color| {
            self.holdings(color)
                .iter()
                .map(|&n| usize::from(n))
                .sum::<usize>()
        };
        let free =
            |color: Color| (Bitboard::from_rank(color.backrank()) & !self.board.occupied()).count();
        let turn_fits = match self.turn {
            Color::White => count(Color::White) == count(Color::Black),
            Color::Black => count(Color::White) + 1 == count(Color::Black),
        };
        let fills = Color::ALL
            .into_iter()
            .all(|color| count(color) == free(color));
        if turn_fits
            && fills
            && *self.holdings(Color::White).get(Role::Pawn) == 0
            && *self.holdings(Color::Black).get(Role::Pawn) == 0
        {
            Ok(())
        } else {
            Err(PositionError::InvalidHoldings)
        }
    }

    fn validate_castling(&self, color: Color) -> Result<(), PositionError> {
        let rights = self.castling_rooks & Bitboard::from_rank(color.backrank());
        let rooks = self.board.by_piece(Role::Rook.of(color));
        let king = self.rules.castling_king(self, color);
        for square in rights {
            if !rooks.contains(square) || king.is_none_or(|king| king.rank() != square.rank()) {
                return Err(PositionError::InvalidCastlingRight { color, square });
            }
        }
        if let Some(king) = king {
            let (a_side, h_side) = rights
                .into_iter()
                .partition::<Vec<_>, _>(|&rook| rook < king);
            if a_side.len() > 1 || h_side.len() > 1 {
                return Err(PositionError::DuplicateCastlingRight { color });
            }
        }
        Ok(())
    }

    /// An en-passant square is the square just passed by a pawn of the side
    /// not to move, which now stands one step beyond it, with both the
    /// passed square and the pawn's origin empty.
    fn validate_ep_square(&self, ep: Square) -> Result<(), PositionError> {
        let mover = !self.turn;
        let forward = mover.fold_wb(8, -8);
        let pawn = ep.offset(forward);
        let origin = ep.offset(-forward);
        let valid = match (pawn, origin) {
            (Some(pawn), Some(origin)) => {
                self.board.by_piece(Role::Pawn.of(mover)).contains(pawn)
                    && !self.board.occupied().contains(ep)
                    && !self.board.occupied().contains(origin)
                    && self.rules.double_step_origins(mover).contains(origin)
            }
            _ => false,
        };
        if valid {
            Ok(())
        } else {
            Err(PositionError::InvalidEnPassant(ep))
        }
    }

    /// The squares attacked by `color`, given the occupancy `occupied`.
    pub(crate) fn is_attacked(&self, square: Square, by: Color, occupied: Bitboard) -> bool {
        self.board.attacks_to(square, by, occupied).any()
    }

    /// Squares whose units block a slider's line to `king` and so are pinned
    /// (or, for enemy units, may give discovered check).
    pub(crate) fn slider_blockers(&self, king: Square) -> Bitboard {
        let board = &self.board;
        let snipers = (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
            | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens());
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers & self.them() {
            let between = attacks::between(king, sniper) & board.occupied();
            if !between.more_than_one() {
                blockers |= between;
            }
        }
        blockers
    }
}
