//! What every request shares: the database and how to reach it (the
//! SQLite writers' turn among them), the JWT keys, the clock, the hub that
//! wakes waiting requests, and the budgets. No game lives here: any
//! instance can serve any request.

use std::{
    net::{IpAddr, SocketAddr},
    sync::{Arc, Mutex},
};

use actix_web::{http::header::HeaderMap, web};

use crate::{
    budgets::{HeldSlots, ImportSlots, Limiter, RateLimits},
    clock::{Clock, Millis},
    credentials::JwtKeys,
    db::{self, DbConnection, DbPool},
    domain::game,
    error::ApiError,
    feeds::Feeds,
    notify::{Hub, Outbox},
    stored::GameId,
    views::GameView,
};

/// What every request shares. No game lives here: any instance can serve
/// any request.
#[derive(Debug)]
pub struct AppState {
    pub pool: DbPool,
    pub keys: JwtKeys,
    pub clock: Arc<dyn Clock>,
    /// Wakes the requests waiting for changes.
    pub hub: Hub,
    pub limits: RateLimits,
    pub limiter: Limiter,
    /// The PGN imports running on this instance.
    pub import_slots: ImportSlots,
    /// The streams and long polls this instance holds open.
    pub held: Arc<HeldSlots>,
    /// Each account's new events, read once for all its streams.
    pub feeds: Feeds,
    /// Reverse proxies whose `X-Forwarded-For` is believed: the client is
    /// the address they name, for budgets and idempotency keys.
    pub trusted_proxies: Vec<IpAddr>,
    /// Whether webhooks may name private and loopback addresses
    /// (development and tests only; see `domain::webhook_targets`).
    pub allow_private_webhooks: bool,
    /// Takes turns among this process's writers on SQLite, which has one
    /// writer at a time: waiting here is prompt, where SQLite's own busy
    /// handler sleeps in steps of up to 100 ms.
    pub sqlite_writer: Arc<Mutex<()>>,
}

impl AppState {
    /// The client's address: the peer's, or, when the peer is a trusted
    /// proxy, the nearest address in `X-Forwarded-For` that is not one of
    /// them (each proxy appends the address it was reached from; a client
    /// can forge only the entries to the left of what they added). The key
    /// of the client's budgets; `unknown` without a peer address.
    pub fn client_address(&self, peer: Option<SocketAddr>, headers: &HeaderMap) -> String {
        let Some(mut address) = peer.map(|peer| peer.ip()) else {
            return "unknown".to_owned();
        };
        if !self.trusted_proxies.contains(&address) {
            return address.to_string();
        }
        let forwarded = headers
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .collect::<Vec<_>>();
        for hop in forwarded.iter().rev() {
            match hop.trim().parse::<IpAddr>() {
                Ok(hop) => {
                    address = hop;
                    if !self.trusted_proxies.contains(&hop) {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
        address.to_string()
    }

    /// Runs `f` with a pooled connection on a blocking thread.
    pub async fn db<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, ApiError> + Send + 'static,
    {
        db::with_connection(&self.pool, f).await
    }

    /// Runs a change with a pooled connection on a blocking thread, then
    /// wakes whoever waits for what it changed (even when it failed after
    /// committing part of it: a needless wake-up costs a read).
    pub async fn write<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection, &mut Outbox) -> Result<T, ApiError> + Send + 'static,
    {
        self.write_then(f, |_, done| Ok(done)).await
    }

    /// Runs a change as [`write`](Self::write) does, then `answer` on the
    /// same connection and thread once the writers' turn is given back: the
    /// answer to a change is read without a second trip through the pool.
    pub async fn write_then<T, U, F, G>(&self, change: F, answer: G) -> Result<U, ApiError>
    where
        U: Send + 'static,
        F: FnOnce(&mut DbConnection, &mut Outbox) -> Result<T, ApiError> + Send + 'static,
        G: FnOnce(&mut DbConnection, T) -> Result<U, ApiError> + Send + 'static,
    {
        let pool = self.pool.clone();
        let sqlite_writer = self.sqlite_writer.clone();
        let (result, outbox) = web::block(move || {
            let mut outbox = Outbox::default();
            let result = pool.get().map_err(ApiError::from).and_then(|mut conn| {
                let turn = matches!(**conn, DbConnection::Sqlite(_)).then(|| {
                    sqlite_writer
                        .lock()
                        .unwrap_or_else(|poison| poison.into_inner())
                });
                let done = change(&mut conn, &mut outbox);
                drop(turn);
                outbox.announce(&mut conn);
                answer(&mut conn, done?)
            });
            (result, outbox)
        })
        .await?;
        self.hub.publish(outbox);
        result
    }

    /// A game as clients read it. Read outside the writers' turn (SQLite
    /// has one writer at a time): only a game due to be lost on time needs
    /// a write.
    pub async fn game_view(&self, game_id: GameId, now: Millis) -> Result<GameView, ApiError> {
        let id = game_id.clone();
        if let Some(view) = self
            .db(move |conn| game::view_unless_due(conn, &id, now))
            .await?
        {
            return Ok(view);
        }
        self.write(move |conn, outbox| game::view(conn, outbox, &game_id, now))
            .await
    }
}
