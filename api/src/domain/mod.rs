//! Game logic between the handlers and the database: who may do what,
//! and what it changes. Handlers call one function here per request.

pub mod account_deletion;
pub mod accounts;
pub mod annotations;
pub mod bots;
pub mod challenge;
pub mod collections;
pub mod conditionals;
pub mod cursor;
pub mod events;
pub mod game;
pub mod history;
pub mod lichess;
pub mod mail;
pub mod messages;
pub mod notices;
pub mod notifications;
pub mod openings;
pub mod pgn;
pub mod profiles;
pub mod push;
pub mod ratings;
pub mod recovery;
pub mod search;
pub mod session;
pub mod teams;
pub mod tokens;
pub mod tournament;
pub mod vacation;
pub mod webhook_targets;
pub mod webhooks;
