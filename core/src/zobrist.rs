//! Repetition keys: Zobrist hashing of everything that makes two positions
//! the same for the repetition rules (docs/spec/rules.md §2.3, ends of a game).

use shakmaty::{Board, Color, Piece, Role};

use crate::Position;

/// SplitMix64: a fixed, well-mixed sequence of keys, computed at compile time.
const fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = splitmix64(seed.wrapping_mul(0x1_0000).wrapping_add(i as u64));
        i += 1;
    }
    out
}

/// One key per (piece, square): index `piece * 64 + square`.
static PIECE_SQUARE: [u64; 12 * 64] = keys(1);
/// One key per square of a rook that may still castle.
static CASTLING_ROOK: [u64; 64] = keys(2);
/// One key per file of a legal en-passant capture.
static EP_FILE: [u64; 8] = keys(3);
static BLACK_TO_MOVE: u64 = splitmix64(4);
/// One key per side holding the rule set's once-per-game right.
static RIGHT: [u64; 2] = keys(5);

fn piece_index(piece: Piece) -> usize {
    (piece.role as usize - 1) * 2 + piece.color as usize
}

impl Position {
    /// A key equal for two positions exactly when the repetition rules count
    /// them as the same: placement, side to move, castling rights, a legal
    /// en-passant capture and the rule set's own rights.
    pub fn repetition_key(&self) -> u64 {
        placement_key(&self.board) ^ self.state_key()
    }

    /// The key's part that is not the placement.
    fn state_key(&self) -> u64 {
        let mut key = 0;
        if self.turn == Color::Black {
            key ^= BLACK_TO_MOVE;
        }
        for rook in self.castling_rooks {
            key ^= CASTLING_ROOK[rook as usize];
        }
        for color in Color::ALL {
            if self.has_right(color) {
                key ^= RIGHT[color as usize];
            }
        }
        if let Some(ep) = self.legal_ep_square() {
            key ^= EP_FILE[ep.file() as usize];
        }
        key
    }
}

/// The key's part for the placement of the pieces.
fn placement_key(board: &Board) -> u64 {
    // By piece, not by square: a bitboard a piece is a few dozen bit scans,
    // where asking each occupied square its piece is not.
    changed_pieces_key(0, &Board::empty(), board)
}

/// `key` with the pieces that differ between `before` and `after` hashed
/// in or out: a move changes two to four squares.
fn changed_pieces_key(mut key: u64, before: &Board, after: &Board) -> u64 {
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = role.of(color);
            let keys = &PIECE_SQUARE[piece_index(piece) * 64..][..64];
            for square in before.by_piece(piece) ^ after.by_piece(piece) {
                key ^= keys[square as usize];
            }
        }
    }
    key
}

/// The repetition keys of a line of play, kept as it goes: each move
/// rehashes the squares it changed, not the whole board, with the same
/// keys as [`Position::repetition_key`].
#[derive(Clone, Debug)]
pub(crate) struct LineKeys {
    placement: u64,
}

impl LineKeys {
    /// The keys of a line from `start`, and the start's key.
    pub(crate) fn new(start: &Position) -> (LineKeys, u64) {
        let placement = placement_key(&start.board);
        (LineKeys { placement }, placement ^ start.state_key())
    }

    /// The key of `after`, reached from the placement `before` by a move.
    pub(crate) fn next(&mut self, before: &Board, after: &Position) -> u64 {
        self.placement = changed_pieces_key(self.placement, before, &after.board);
        self.placement ^ after.state_key()
    }
}
