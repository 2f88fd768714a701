//! Correspondence tournaments: round robins paired by the Berger tables
//! (`berger`), ranked with ICCF's tie-breaks (`standings`), organised,
//! joined, started and finished (`lifecycle`), and read (`view`).

pub mod berger;
pub mod lifecycle;
pub mod standings;
pub mod view;
