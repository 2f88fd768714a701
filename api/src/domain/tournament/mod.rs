//! Correspondence tournaments: the pairings of a round robin by the Berger
//! tables, and standings with ICCF's tie-breaks. Pure computations, ahead
//! of the tables and routes that will hold tournaments.

pub mod berger;
pub mod standings;
