//! kingpost-api: the correspondence chess service. Stateless: games live
//! in the database (SQLite or Postgres), so any instance serves any request.

pub mod app;
pub mod auth;
pub mod budgets;
pub mod clock;
pub mod credentials;
pub mod db;
pub mod deletions;
pub mod domain;
pub mod error;
pub mod feeds;
pub mod imports;
pub mod middleware;
pub mod models;
pub mod names;
pub mod notify;
pub mod openapi;
pub mod passwords;
pub mod presence;
pub mod routes;
pub mod secret;
pub mod server;
pub mod state;
mod stored;
pub mod streams;
pub mod views;
pub mod workers;
