//! Perft: the count of legal move paths, the proof of a move generator.

use crate::{Move, MoveList, Position};

/// The number of legal move sequences of `depth` plies from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    pos.legal_moves_into(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by first move: each legal move with the count below it.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            (*m, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}
