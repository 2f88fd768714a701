//! The API's integration tests: the real app, built as `kingpost serve`
//! builds it, against SQLite and (when `KINGPOST_TEST_DATABASE_URL` is set,
//! as CI sets it) against Postgres.

mod conformance;
mod support;

mod analysis;
mod annotations;
mod auth;
mod bots;
mod caps;
mod challenges;
mod clocks;
mod collections;
mod concurrency;
mod conventions;
mod correspondence;
mod deletion;
mod end_to_end;
mod errors;
mod events;
mod flows;
mod games;
mod hardening;
mod lichess;
mod mail;
mod messages;
mod migrations;
mod notifications;
mod openapi;
mod pgn;
mod push;
mod ratings;
mod search;
mod sqlite_build;
mod statements;
mod swiss;
mod teams;
mod tournaments;
mod web_client;

/// Runs each named test function (an `async fn(Db)`) once on SQLite and
/// once on Postgres, in modules `sqlite` and `postgres`.
#[macro_export]
macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[actix_web::test]
                async fn $name() {
                    super::$name($crate::support::Db::sqlite()).await;
                }
            )*
        }
        mod postgres {
            $(
                #[actix_web::test]
                async fn $name() {
                    if let Some(db) = $crate::support::Db::postgres() {
                        super::$name(db).await;
                    }
                }
            )*
        }
    };
}
