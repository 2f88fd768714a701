//! kingpost-api: the correspondence chess service. Stateless: games live
//! in the database (SQLite or Postgres), so any instance serves any request.

pub mod app;
pub mod auth;
pub mod clock;
pub mod conventions;
pub mod db;
pub mod domain;
pub mod error;
pub mod feeds;
pub mod idempotency;
pub mod limits;
pub mod models;
pub mod notify;
pub mod openapi;
pub mod passwords;
pub mod routes;
pub mod secret;
pub mod server;
pub mod views;
