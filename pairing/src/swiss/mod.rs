//! Swiss pairings by FIDE's rules (Handbook C.04): what each player
//! brings to the next round's pairing, read from the tournament so far.

pub mod colours;
pub mod players;
