//! Waking the requests that wait for a change: long polls wait on a game,
//! event streams on an account. Every instance has a hub; a change made by
//! any instance reaches it, in-process after the commit, and from other
//! instances through Postgres `LISTEN`/`NOTIFY`.

use std::{sync::Arc, time::Duration};

use diesel::{Connection, PgConnection, RunQueryDsl};
use tokio::sync::broadcast;

use crate::db::DbConnection;

/// The Postgres channel changes are announced on.
pub const CHANNEL: &str = "kingpost_changes";

/// What changed: `g:<game id>`, `a:<account id>` (its events), or
/// `t:<account id>` (its tokens).
pub type Signal = Arc<str>;

pub fn game_signal(game_id: &str) -> Signal {
    format!("g:{game_id}").into()
}

pub fn account_signal(account_id: &str) -> Signal {
    format!("a:{account_id}").into()
}

/// A token of the account was revoked: the streams held with it end.
pub fn token_signal(account_id: &str) -> Signal {
    format!("t:{account_id}").into()
}

/// The signals of one request's changes, published once it is done.
#[derive(Debug, Default)]
pub struct Outbox(Vec<Signal>);

impl Outbox {
    /// Records `signal`, and on Postgres announces it to the other instances
    /// (delivered when the transaction commits).
    pub fn push(&mut self, conn: &mut DbConnection, signal: Signal) -> diesel::QueryResult<()> {
        if let DbConnection::Postgresql(pg) = conn {
            diesel::sql_query("SELECT pg_notify($1, $2)")
                .bind::<diesel::sql_types::Text, _>(CHANNEL)
                .bind::<diesel::sql_types::Text, _>(&*signal)
                .execute(pg)?;
        }
        if !self.0.contains(&signal) {
            self.0.push(signal);
        }
        Ok(())
    }
}

/// This instance's hub.
#[derive(Debug, Clone)]
pub struct Hub {
    sender: broadcast::Sender<Signal>,
    /// Held by every clone: the Postgres relay stops when the last is gone.
    alive: Arc<()>,
}

impl Default for Hub {
    fn default() -> Hub {
        Hub {
            sender: broadcast::channel(1024).0,
            alive: Arc::new(()),
        }
    }
}

impl Hub {
    pub fn publish(&self, outbox: Outbox) {
        for signal in outbox.0 {
            let _ = self.sender.send(signal);
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Signal> {
        self.sender.subscribe()
    }

    /// Relays the changes other instances announce on Postgres to this hub,
    /// from a thread of its own with its own connection, for as long as the
    /// hub lives. Reconnects after errors.
    pub fn listen_to_postgres(&self, url: String) {
        let sender = self.sender.clone();
        let alive = Arc::downgrade(&self.alive);
        std::thread::Builder::new()
            .name("kingpost-listen".into())
            .spawn(move || {
                while alive.strong_count() > 0 {
                    if let Err(error) = relay(&url, &sender, &alive) {
                        tracing::warn!(%error, "listening for changes on Postgres failed; retrying");
                        std::thread::sleep(Duration::from_secs(1));
                    }
                }
            })
            .expect("a thread for LISTEN");
    }
}

fn relay(
    url: &str,
    sender: &broadcast::Sender<Signal>,
    alive: &std::sync::Weak<()>,
) -> Result<(), String> {
    let mut conn = PgConnection::establish(url).map_err(|e| e.to_string())?;
    diesel::sql_query(format!("LISTEN {CHANNEL}"))
        .execute(&mut conn)
        .map_err(|e| e.to_string())?;
    while alive.strong_count() > 0 {
        for notification in conn.notifications_iter() {
            let notification = notification.map_err(|e| e.to_string())?;
            let _ = sender.send(notification.payload.into());
        }
        // libpq has no blocking wait here: poll the socket briefly.
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}

/// Waits until `signal` is published or `timeout` passes; whether it was.
pub async fn wait_for(
    receiver: &mut broadcast::Receiver<Signal>,
    signal: &str,
    timeout: Duration,
) -> bool {
    let deadline = actix_web::rt::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(actix_web::rt::time::Instant::now());
        match actix_web::rt::time::timeout(left, receiver.recv()).await {
            Err(_) => return false,
            Ok(Ok(received)) if &*received == signal => return true,
            // Missed signals: anything may have changed.
            Ok(Err(broadcast::error::RecvError::Lagged(_))) => return true,
            Ok(Err(broadcast::error::RecvError::Closed)) => return false,
            Ok(Ok(_)) => {}
        }
    }
}
