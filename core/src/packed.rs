//! A game's moves packed in a few bytes each, as docs/spec/packed-moves.md
//! specifies: each move is its place among the legal moves of its
//! position, sorted by [`Move::order_key`], written as an unsigned LEB128
//! number after a byte naming the format. Reading it back replays the game,
//! which every use of a stored game's moves does anyway.

use std::fmt;

use crate::{Move, MoveList, Position};

/// The first byte of a packed game: the format it is written in.
pub const FORMAT: u8 = 1;

/// Why a game's moves could not be packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalMove {
    /// How many moves came before the illegal one.
    pub ply: usize,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the move after ply {} is not legal there", self.ply)
    }
}

impl std::error::Error for IllegalMove {}

/// Why packed moves could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnpackError {
    /// No bytes at all: not even the format.
    Empty,
    /// A format this build does not read.
    UnknownFormat(u8),
    /// The bytes end inside a move's number.
    Truncated { ply: usize },
    /// A move's number is no legal move of its position.
    OutOfRange {
        ply: usize,
        index: usize,
        legal: usize,
    },
}

impl fmt::Display for UnpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnpackError::Empty => write!(f, "no packed moves: not even their format"),
            UnpackError::UnknownFormat(format) => {
                write!(f, "packed moves of unknown format {format}")
            }
            UnpackError::Truncated { ply } => {
                write!(f, "packed moves cut off in the move after ply {ply}")
            }
            UnpackError::OutOfRange { ply, index, legal } => write!(
                f,
                "packed move {index} after ply {ply}, where {legal} moves are legal"
            ),
        }
    }
}

impl std::error::Error for UnpackError {}

impl Move {
    /// The move's place in the order packed moves are counted in: its kind,
    /// then its two squares, then the role it promotes to or places
    /// (docs/spec/packed-moves.md). No two legal moves of one position have
    /// the same key.
    pub fn order_key(&self) -> u32 {
        fn key(kind: u32, first: shakmaty::Square, second: shakmaty::Square, role: u32) -> u32 {
            (kind << 16) | (u32::from(first) << 10) | (u32::from(second) << 4) | role
        }
        let role = |role: Option<shakmaty::Role>| role.map_or(0, |r| r as u32);
        match *self {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => key(0, from, to, role(promotion)),
            Move::EnPassant { from, to } => key(1, from, to, 0),
            Move::Castle { king, rook } => key(2, king, rook, 0),
            Move::Teleport { from, to } => key(3, from, to, 0),
            Move::Leap { from, to } => key(4, from, to, 0),
            Move::Switch {
                first,
                second,
                promotion,
            } => key(5, first, second, role(promotion)),
            Move::Put { role: placed, to } => key(6, shakmaty::Square::A1, to, placed as u32),
        }
    }
}

/// The move numbered `number` among `legal`, the legal moves of a
/// position in any order: found by selection, without sorting them all
/// (`legal` is left partly reordered).
fn numbered_among(legal: &mut MoveList, number: usize) -> Option<Move> {
    if number >= legal.len() {
        return None;
    }
    let (_, m, _) = legal.select_nth_unstable_by_key(number, Move::order_key);
    Some(*m)
}

/// Packs `moves`, played in turn from `initial`.
pub fn pack(initial: &Position, moves: &[Move]) -> Result<Vec<u8>, IllegalMove> {
    let mut bytes = empty();
    let mut pos = initial.clone();
    let mut legal = MoveList::new();
    for (ply, m) in moves.iter().enumerate() {
        let index = index_among(&pos, m, &mut legal).ok_or(IllegalMove { ply })?;
        write_number(&mut bytes, index);
        pos.play_unchecked(*m);
    }
    Ok(bytes)
}

/// The packed form of a game without moves: the format alone.
pub fn empty() -> Vec<u8> {
    vec![FORMAT]
}

/// Appends `m` to the packed moves `bytes`, given `legal`, the legal
/// moves (in any order) of the position it is played from, which a caller
/// playing the move has at hand: the move's number, or `None` (and `bytes`
/// unchanged) if it is not one of them.
pub fn push(bytes: &mut Vec<u8>, legal: &MoveList, m: &Move) -> Option<usize> {
    let index = number_among(legal, m)?;
    write_number(bytes, index);
    Some(index)
}

/// The number `m` is packed as from `pos`, if it is legal there.
pub fn number_of(pos: &Position, m: &Move) -> Option<usize> {
    index_among(pos, m, &mut MoveList::new())
}

/// The move packed as `number` from `pos`, if there is one.
pub fn move_numbered(pos: &Position, number: usize) -> Option<Move> {
    let mut legal = MoveList::new();
    pos.legal_moves_into(&mut legal);
    numbered_among(&mut legal, number)
}

/// The numbers of packed moves, read without replaying the game: each
/// move's place among the legal moves of its position.
pub fn numbers(bytes: &[u8]) -> Result<Vec<usize>, UnpackError> {
    let mut rest = match bytes.split_first() {
        None => return Err(UnpackError::Empty),
        Some((&FORMAT, rest)) => rest,
        Some((&other, _)) => return Err(UnpackError::UnknownFormat(other)),
    };
    let mut numbers = Vec::with_capacity(rest.len());
    while !rest.is_empty() {
        let ply = numbers.len();
        let (n, read) = read_number(rest).ok_or(UnpackError::Truncated { ply })?;
        numbers.push(n);
        rest = &rest[read..];
    }
    Ok(numbers)
}

/// The place of `m` among the legal moves of `pos` in packing order
/// (`legal` reused for them).
fn index_among(pos: &Position, m: &Move, legal: &mut MoveList) -> Option<usize> {
    pos.legal_moves_into(legal);
    number_among(legal, m)
}

/// The place of `m` among `legal`, the legal moves of a position in any
/// order, sorted by their keys: how many have a smaller key, if `m` is one
/// of them. A count, where sorting them would cost more.
fn number_among(legal: &MoveList, m: &Move) -> Option<usize> {
    let key = m.order_key();
    let mut smaller = 0;
    let mut found = false;
    for other in legal.iter() {
        let other = other.order_key();
        smaller += usize::from(other < key);
        found |= other == key;
    }
    found.then_some(smaller)
}

/// The moves packed in `bytes`, played in turn from `initial`.
pub fn unpack(initial: &Position, bytes: &[u8]) -> Result<Vec<Move>, UnpackError> {
    Unpacked::new(initial.clone(), bytes)?.collect()
}

/// The moves of a packed game, read one at a time, with the position each
/// is played from: a reader that needs the positions (SAN, an index) replays
/// the game once.
#[derive(Debug)]
pub struct Unpacked<'a> {
    pos: Position,
    rest: &'a [u8],
    ply: usize,
    legal: MoveList,
}

impl<'a> Unpacked<'a> {
    pub fn new(initial: Position, bytes: &'a [u8]) -> Result<Unpacked<'a>, UnpackError> {
        match bytes.split_first() {
            None => Err(UnpackError::Empty),
            Some((&FORMAT, rest)) => Ok(Unpacked {
                pos: initial,
                rest,
                ply: 0,
                legal: MoveList::new(),
            }),
            Some((&other, _)) => Err(UnpackError::UnknownFormat(other)),
        }
    }

    /// The position the next move is played from (after the last, the
    /// game's final position).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The legal moves of the position the last move read was played from
    /// (in no particular order), once `next` has been called.
    pub fn legal_moves(&self) -> &MoveList {
        &self.legal
    }
}

impl Iterator for Unpacked<'_> {
    type Item = Result<Move, UnpackError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let ply = self.ply;
        let Some((index, read)) = read_number(self.rest) else {
            self.rest = &[];
            return Some(Err(UnpackError::Truncated { ply }));
        };
        self.rest = &self.rest[read..];
        self.pos.legal_moves_into(&mut self.legal);
        let Some(m) = numbered_among(&mut self.legal, index) else {
            self.rest = &[];
            return Some(Err(UnpackError::OutOfRange {
                ply,
                index,
                legal: self.legal.len(),
            }));
        };
        self.pos.play_unchecked(m);
        self.ply += 1;
        Some(Ok(m))
    }
}

/// Writes `n` as unsigned LEB128: seven bits a byte, low bits first, the
/// high bit set on every byte but the last.
fn write_number(bytes: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        bytes.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
}

/// Reads an unsigned LEB128 number off the front of `bytes`: it and how
/// many bytes it took, or `None` when they end inside it (or it runs past
/// any number of legal moves).
fn read_number(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut n = 0usize;
    for (i, &byte) in bytes.iter().enumerate().take(3) {
        n |= usize::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_in_one_byte_below_128_and_two_below_16384() {
        for (n, len) in [(0, 1), (1, 1), (127, 1), (128, 2), (511, 2), (16_383, 2)] {
            let mut bytes = Vec::new();
            write_number(&mut bytes, n);
            assert_eq!(bytes.len(), len, "{n}");
            assert_eq!(read_number(&bytes), Some((n, len)), "{n}");
        }
        assert_eq!(read_number(&[0x80]), None, "cut off");
        assert_eq!(read_number(&[]), None);
    }
}
