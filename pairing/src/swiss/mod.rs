//! Swiss pairings by FIDE's rules (Handbook C.04): what each player
//! brings to the next round's pairing, read from the tournament so far,
//! and the Dutch system's pairing of it.

pub mod bracket;
pub mod colours;
pub mod dutch;
pub mod players;
pub mod tiebreaks;
