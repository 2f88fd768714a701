//! Database rows and the queries beside them. Rows never go on the wire:
//! handlers turn them into views.

pub mod account;
pub mod annotation;
pub mod appearances;
pub mod challenge;
pub mod collection;
pub mod conditional;
pub mod deletion;
pub mod event;
pub mod explorer_counts;
pub mod game;
pub mod idempotency;
pub mod legacy_moves;
pub mod mail;
pub mod message;
pub mod move_times;
pub mod notification;
pub mod position_index;
pub mod push;
pub mod rating;
pub mod search;
pub mod setting;
pub mod team;
pub mod token;
pub mod tournament;

use crate::db::DbConnection;

/// The collation that orders text by its bytes, as Rust compares strings:
/// where two lists read from the database are merged in Rust (a position
/// search's, a player's games as White and as Black), or PGN's days
/// sort. SQLite's own; on Postgres "C", whatever the database's collation.
pub(crate) fn byte_order(conn: &DbConnection) -> &'static str {
    match conn {
        DbConnection::Postgresql(_) => " COLLATE \"C\"",
        DbConnection::Sqlite(_) => "",
    }
}

/// The collation that compares a position index row's game id (in byte
/// order on Postgres, so that a search pages along the index) with a
/// game's own: without it Postgres compares in the index's collation and
/// cannot look the game up by its key. SQLite has one collation.
pub(crate) fn games_collation(conn: &DbConnection) -> &'static str {
    match conn {
        DbConnection::Postgresql(_) => " COLLATE \"default\"",
        DbConnection::Sqlite(_) => "",
    }
}
