//! Who is online: an account while one of its streams (its events, or a
//! game's) is open. The instance holding the streams keeps the accounts'
//! `online_until` a little ahead of now, so that every instance answers
//! alike; a stream that ends leaves its account online until then.

use std::time::Duration;

use actix_web::web;

use crate::{
    clock::{Millis, SECOND},
    error::ApiError,
    models::account::{self, Account},
    state::AppState,
    stored::AccountId,
};

/// How long an account stays online after its streams were last seen.
pub const ONLINE_FOR: Millis = 90 * SECOND;
/// How often an instance marks the accounts of its open streams: well
/// within [`ONLINE_FOR`], and a statement per few hundred accounts.
const MARK_EVERY: Duration = Duration::from_secs(30);

/// Whether `account` is online at `now`.
pub fn is_online(account: &Account, now: Millis) -> bool {
    account.online_until.is_some_and(|until| until > now)
}

/// Marks `account` online at once: a stream of it has opened.
pub async fn opened(state: &web::Data<AppState>, account: &AccountId) -> Result<(), ApiError> {
    let until = state.clock.now() + ONLINE_FOR;
    let id = account.clone();
    // A write: on SQLite it takes the writers' turn like any other.
    state
        .write(move |conn, _| Ok(account::mark_online(conn, &[id], until)?))
        .await
}

/// Keeps the accounts of this instance's open streams online, for ever.
pub async fn keep_online_forever(state: web::Data<AppState>) {
    let mut ticks = actix_web::rt::time::interval(MARK_EVERY);
    loop {
        ticks.tick().await;
        let listening = state.feeds.listening();
        if listening.is_empty() {
            continue;
        }
        let until = state.clock.now() + ONLINE_FOR;
        let marked = state
            .write(move |conn, _| Ok(account::mark_online(conn, &listening, until)?))
            .await;
        if let Err(error) = marked {
            tracing::warn!(%error, "marking the accounts of open streams online failed");
        }
    }
}
