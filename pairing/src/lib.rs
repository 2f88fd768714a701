//! Pairing algorithms for kingpost's events, apart from the service: no
//! database, no I/O. Swiss pairings by FIDE's Dutch system are a maximum-
//! weight matching over the players, each edge's weight packing the
//! system's criteria from the most important bits down (as bbpPairings
//! and py4swiss build them); [`matching`] computes it.

pub mod graph;
pub mod matching;
pub mod swiss;
pub mod trf;
