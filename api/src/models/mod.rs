//! Database rows and the queries beside them. Rows never go on the wire:
//! handlers turn them into views.

pub mod account;
pub mod annotation;
pub mod challenge;
pub mod collection;
pub mod conditional;
pub mod event;
pub mod game;
pub mod idempotency;
pub mod rating;
pub mod search;
pub mod setting;
pub mod token;
pub mod tournament;
