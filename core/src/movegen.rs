//! Legal move generation: one pipeline for every rule set.
//!
//! The common moves are generated legal from the start, the way shakmaty
//! does it: evasions when in check, pinned units kept on their pin line,
//! king moves only to safe squares. The rule set then adds its own moves,
//! which it checks itself.

use shakmaty::{Bitboard, File, Role, Square, attacks};

use crate::{Move, MoveList, Position, start::prechess};

/// Which legal moves a generation is asked for: those landing on a square
/// of `to`, and castling moves or not. Readers of a move's text know where
/// it lands before they know the move, and need only the moves that land
/// there: a fraction of the generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub to: Bitboard,
    pub castling: bool,
}

impl Wanted {
    /// Every legal move.
    pub const ALL: Wanted = Wanted {
        to: Bitboard::FULL,
        castling: true,
    };

    /// The moves landing on `square`, castling left out.
    pub fn to(square: Square) -> Wanted {
        Wanted {
            to: Bitboard::from(square),
            castling: false,
        }
    }

    /// The castling moves alone.
    pub const CASTLING: Wanted = Wanted {
        to: Bitboard::EMPTY,
        castling: true,
    };

    /// Whether `m` is among the moves asked for. A switch lands on both its
    /// squares; a castling move is asked for by kind, not by square.
    pub fn admits(&self, m: &Move) -> bool {
        match *m {
            Move::Castle { .. } => self.castling,
            Move::Switch { first, second, .. } => {
                self.to.contains(first) || self.to.contains(second)
            }
            Move::Put { to, .. } => self.to.contains(to),
            Move::Normal { to, .. }
            | Move::EnPassant { to, .. }
            | Move::Teleport { to, .. }
            | Move::Leap { to, .. } => self.to.contains(to),
        }
    }
}

impl Position {
    /// Every legal move in this position.
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.legal_moves_into(&mut moves);
        moves
    }

    /// Fills `moves` with every legal move in this position, in place: the
    /// fast path for callers that generate many times (perft, search).
    pub fn legal_moves_into(&self, moves: &mut MoveList) {
        self.gen_legal(Wanted::ALL, moves);
    }

    /// Fills `moves` with the legal moves `wanted` admits: exactly those of
    /// [`Position::legal_moves`] that it admits, in the same order.
    pub fn wanted_moves_into(&self, wanted: Wanted, moves: &mut MoveList) {
        // A rule set's own moves are found from the common ones, and the
        // placements of Pre-chess by their own rules: generated whole.
        if wanted == Wanted::ALL || (self.rules.only_common_moves() && self.is_placement_done()) {
            self.gen_legal(wanted, moves);
        } else {
            self.gen_legal(Wanted::ALL, moves);
            moves.retain(|m| wanted.admits(m));
        }
    }

    /// The legality pipeline, generating common moves to `wanted`'s squares
    /// alone: whole for a rule set that adds moves of its own.
    fn gen_legal(&self, wanted: Wanted, moves: &mut MoveList) {
        moves.clear();
        if self.is_won_by_rule_set() {
            return;
        }
        if !self.is_placement_done() {
            prechess::add_placements(self, moves);
            return;
        }
        let castling_is_common = self.rules.castling_checks_attacks();
        // Units never capture a king, even one that check cannot touch.
        let target = !self.us() & !self.board.kings() & wanted.to;
        let en_passant = self.ep_square.is_some_and(|ep| wanted.to.contains(ep));
        match self.checkable_king() {
            Some(king) => {
                let has_ep = en_passant && self.gen_en_passant(moves);
                let checkers = self.checkers();
                if checkers.is_empty() {
                    self.gen_non_king(target, moves);
                    self.gen_safe_king(king, target, moves);
                    if castling_is_common && wanted.castling {
                        self.gen_castling(moves);
                    }
                } else {
                    self.gen_evasions(king, checkers, target, moves);
                }
                let blockers = self.slider_blockers(king);
                if blockers.any() || has_ep {
                    moves.retain(|m| self.is_safe(king, *m, blockers));
                }
            }
            None => {
                // No king that check can reach: nothing restricts the moves.
                if en_passant {
                    self.gen_en_passant(moves);
                }
                self.gen_non_king(target, moves);
                if castling_is_common && wanted.castling {
                    self.gen_castling(moves);
                }
            }
        }

        let mut extra = MoveList::new();
        if !castling_is_common {
            // Castling without conditions on attacks is tested like any added move.
            self.gen_castling(&mut extra);
        }
        self.rules.add_extra_candidates(self, moves, &mut extra);
        // By reference: moving the list into an iterator would copy all of it.
        for m in &extra {
            if self.is_safe_after(*m) {
                moves.push(*m);
            }
        }
    }

    /// Every move that obeys the rules except the one that the mover's king
    /// must not be left in check: the input of an independent, brute-force
    /// legality check (play each and test the king), for tests.
    #[doc(hidden)]
    pub fn pseudo_legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        if self.is_won_by_rule_set() {
            return moves;
        }
        if !self.is_placement_done() {
            prechess::add_placements(self, &mut moves);
            return moves;
        }
        let target = !self.us() & !self.board.kings();
        self.gen_en_passant(&mut moves);
        self.gen_non_king(target, &mut moves);
        // A king that check cannot reach moves only as its rule set says.
        if let Some(king) = self.checkable_king() {
            self.push_normal(
                Role::King,
                king,
                attacks::king_attacks(king) & target,
                &mut moves,
            );
        }
        self.gen_castling(&mut moves);
        let mut extra = MoveList::new();
        self.rules.add_extra_candidates(self, &moves, &mut extra);
        moves.extend(extra);
        moves
    }

    /// Whether `m`, a pseudo-legal move, leaves the mover's king out of check.
    #[doc(hidden)]
    pub fn is_legal_by_trial(&self, m: Move) -> bool {
        self.is_safe_after(m)
    }

    /// Whether the rule set has declared the game won here (the Captive
    /// Kings goal rank): like a checkmate, such a position has no legal
    /// moves (docs/spec/rules.md §2, common laws).
    fn is_won_by_rule_set(&self) -> bool {
        self.rules.outcome(self).is_some()
    }

    /// The square of the mover's king, if check can reach it.
    fn checkable_king(&self) -> Option<Square> {
        self.board
            .king_of(self.turn)
            .filter(|_| self.rules.can_be_checked(self, self.turn))
    }

    /// Whether `m` is legal here.
    pub fn is_legal(&self, m: &Move) -> bool {
        self.legal_moves().contains(m)
    }

    fn gen_non_king(&self, target: Bitboard, moves: &mut MoveList) {
        self.gen_pawn_moves(target, moves);
        let occupied = self.board.occupied();
        if let Some(to) = target.single_square() {
            // Asked for the moves to one square: attacks are symmetric, so
            // the units that reach it are those a unit of their kind there
            // would attack, found with one lookup a line and none a sender.
            let diagonal = attacks::bishop_attacks(to, occupied);
            let straight = attacks::rook_attacks(to, occupied);
            for (role, senders) in [
                (Role::Knight, attacks::knight_attacks(to)),
                (Role::Bishop, diagonal),
                (Role::Rook, straight),
                (Role::Queen, diagonal | straight),
            ] {
                for from in self.our(role) & senders {
                    self.push_normal(role, from, target, moves);
                }
            }
            return;
        }
        for from in self.our(Role::Knight) {
            self.push_normal(
                Role::Knight,
                from,
                attacks::knight_attacks(from) & target,
                moves,
            );
        }
        for from in self.our(Role::Bishop) {
            self.push_normal(
                Role::Bishop,
                from,
                attacks::bishop_attacks(from, occupied) & target,
                moves,
            );
        }
        for from in self.our(Role::Rook) {
            self.push_normal(
                Role::Rook,
                from,
                attacks::rook_attacks(from, occupied) & target,
                moves,
            );
        }
        for from in self.our(Role::Queen) {
            self.push_normal(
                Role::Queen,
                from,
                attacks::queen_attacks(from, occupied) & target,
                moves,
            );
        }
    }

    fn push_normal(&self, role: Role, from: Square, destinations: Bitboard, moves: &mut MoveList) {
        for to in destinations {
            moves.push(Move::Normal {
                role,
                from,
                capture: self.board.role_at(to),
                to,
                promotion: None,
            });
        }
    }

    fn gen_safe_king(&self, king: Square, target: Bitboard, moves: &mut MoveList) {
        let occupied = self.board.occupied();
        for to in attacks::king_attacks(king) & target {
            if !self.is_attacked(to, !self.turn, occupied) {
                self.push_normal(Role::King, king, Bitboard::from(to), moves);
            }
        }
    }

    /// Moves out of check to squares of `target`.
    fn gen_evasions(
        &self,
        king: Square,
        checkers: Bitboard,
        target: Bitboard,
        moves: &mut MoveList,
    ) {
        // The king may not step back along a checking slider's line.
        let mut attacked = Bitboard::EMPTY;
        for checker in checkers & self.board.sliders() {
            attacked |= attacks::ray(checker, king) ^ Bitboard::from(checker);
        }
        self.gen_safe_king(king, target & !attacked, moves);

        if let Some(checker) = checkers.single_square() {
            let block_or_capture = attacks::between(king, checker).with(checker);
            self.gen_non_king(target & block_or_capture, moves);
        }
    }

    fn gen_pawn_moves(&self, target: Bitboard, moves: &mut MoveList) {
        let pawns = self.our(Role::Pawn);
        let forward = self.turn.fold_wb(8, -8);
        let empty = !self.board.occupied();

        let capture_targets = self.them() & target;
        for (edge, offset) in [(File::A, forward - 1), (File::H, forward + 1)] {
            let captures = (pawns & !Bitboard::from_file(edge)).shift(offset) & capture_targets;
            for to in captures {
                self.push_pawn_move(shifted(to, -offset), to, moves);
            }
        }

        let single = pawns.shift(forward) & empty;
        for to in single & target {
            self.push_pawn_move(shifted(to, -forward), to, moves);
        }

        let double_origins = self.rules.double_step_origins(self.turn);
        let double = (single & (double_origins & pawns).shift(forward)).shift(forward) & empty;
        for to in double & target {
            self.push_pawn_move(shifted(to, -2 * forward), to, moves);
        }
    }

    fn push_pawn_move(&self, from: Square, to: Square, moves: &mut MoveList) {
        let capture = self.board.role_at(to);
        if Bitboard::BACKRANKS.contains(to) {
            for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture,
                    to,
                    promotion: Some(promotion),
                });
            }
        } else {
            moves.push(Move::Normal {
                role: Role::Pawn,
                from,
                capture,
                to,
                promotion: None,
            });
        }
    }

    /// Pseudo-legal en-passant captures; whether there were any.
    fn gen_en_passant(&self, moves: &mut MoveList) -> bool {
        let Some(to) = self.ep_square else {
            return false;
        };
        let capturers = self.our(Role::Pawn) & attacks::pawn_attacks(!self.turn, to);
        for from in capturers {
            moves.push(Move::EnPassant { from, to });
        }
        capturers.any()
    }

    /// Castling by the Chess960 rule (docs/spec/rules.md §2, common laws), with the rule
    /// set's king, destinations and rook choice.
    pub(crate) fn gen_castling(&self, moves: &mut MoveList) {
        let Some(king) = self.rules.castling_king(self, self.turn) else {
            return;
        };
        let rights = self.castling_rooks & Bitboard::from_rank(self.turn.backrank());
        for rook in rights {
            if self.rules.may_castle_with(self, king, rook) && self.is_castling_possible(king, rook)
            {
                moves.push(Move::Castle { king, rook });
            }
        }
    }

    fn is_castling_possible(&self, king: Square, rook: Square) -> bool {
        let (king_to, rook_to) = self.castling_destinations(king, rook);
        let occupied = self.board.occupied();
        let king_path = attacks::between(king, king_to).with(king_to);
        let rook_path = attacks::between(rook, rook_to).with(rook_to);
        let others = occupied.without(king).without(rook);
        if ((king_path | rook_path) & others).any() {
            return false;
        }
        if !self.rules.castling_checks_attacks() {
            return true;
        }
        let them = !self.turn;
        let crossed = attacks::between(king, king_to).with(king);
        if crossed
            .into_iter()
            .any(|sq| self.is_attacked(sq, them, occupied.without(king)))
        {
            return false;
        }
        let after = others.with(king_to).with(rook_to);
        !self.is_attacked(king_to, them, after)
    }

    /// Whether a common move generated above leaves the king safe, given
    /// the units pinned against it.
    fn is_safe(&self, king: Square, m: Move, blockers: Bitboard) -> bool {
        match m {
            Move::Normal { from, to, .. } => {
                !blockers.contains(from) || attacks::aligned(from, to, king)
            }
            Move::EnPassant { from, to } => {
                let captured = Square::from_coords(to.file(), from.rank());
                let occupied = self
                    .board
                    .occupied()
                    .toggled(from)
                    .toggled(captured)
                    .with(to);
                (self.board.attacks_to(king, !self.turn, occupied) & !Bitboard::from(captured))
                    .is_empty()
            }
            // Castling checks its own squares; the rule set checks the moves it adds.
            _ => true,
        }
    }
}

/// `square` moved by `offset`, which the caller knows stays on the board:
/// the inverse of a shift that produced `square`.
fn shifted(square: Square, offset: i32) -> Square {
    Square::new(square.to_u32().wrapping_add_signed(offset))
}
