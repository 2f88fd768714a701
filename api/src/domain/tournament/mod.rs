//! Correspondence tournaments: round robins paired by the Berger tables
//! (`berger`), ranked with ICCF's tie-breaks (`standings`); Swiss paired
//! round by round by FIDE's Dutch system and ranked by FIDE's tie-breaks
//! (`swiss`); team matches between two teams, board against board
//! (`team_match`); organised, joined, started and finished (`lifecycle`),
//! and read (`view`).

pub mod berger;
pub mod lifecycle;
pub mod standings;
pub mod swiss;
pub mod team_match;
pub mod view;
