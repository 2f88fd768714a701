//! Waking the requests that wait for a change: long polls wait on a game,
//! event streams on an account. Every instance has a hub; a change made by
//! any instance reaches it, in-process after the commit, and from other
//! instances through Postgres `LISTEN`/`NOTIFY`.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use diesel::{
    Connection, PgConnection, QueryResult, RunQueryDsl,
    pg::Pg,
    query_builder::{AstPass, QueryFragment, QueryId},
    sql_types::{Array, Text},
};
use tokio::sync::broadcast;

use crate::{
    db::{DbConnection, Yield},
    error::ApiError,
};

/// The Postgres channel changes are announced on.
pub const CHANNEL: &str = "kingpost_changes";

/// What changed: `g:<game id>`, `a:<account id>` (its events),
/// `t:<account id>` (its tokens), or `s` (the open seeks).
pub type Signal = Arc<str>;

pub fn game_signal(game_id: &str) -> Signal {
    format!("g:{game_id}").into()
}

pub fn account_signal(account_id: &str) -> Signal {
    format!("a:{account_id}").into()
}

/// A seek (a challenge open to anyone) was opened, taken or withdrawn.
pub fn seeks_signal() -> Signal {
    "s".into()
}

/// A token of the account was revoked: the streams held with it end.
pub fn token_signal(account_id: &str) -> Signal {
    format!("t:{account_id}").into()
}

/// The signals of one request's changes, published once it is done, and
/// the changes that are to follow it.
#[derive(Debug, Default)]
pub struct Outbox {
    signals: Vec<Signal>,
    follow_ups: Vec<Arc<dyn FollowUp>>,
}

/// A change that follows a committed one, its slow part computed off the
/// writers' turn (SQLite's one writer at a time): [`FollowUp::prepare`]
/// reads what it needs on the primary and computes, and the change it
/// returns is then written on its own. The request that made it due
/// waits for it; one interrupted is the sweep's to make again.
pub trait FollowUp: Send + Sync + std::fmt::Debug {
    /// The change to write, if one is still due.
    fn prepare(&self, conn: &mut DbConnection) -> Result<Option<Box<dyn Prepared>>, ApiError>;
}

/// A follow-up's change, computed from what was read.
pub trait Prepared: Send {
    /// Writes it, if what it was computed from still holds; `false` if
    /// not (it is then prepared again). Work of many items ends its change
    /// early when `yielding` says a request waits for the writers' turn,
    /// leaving the rest as a follow-up of its own.
    fn write(
        self: Box<Self>,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: i64,
        yielding: &dyn Yield,
    ) -> Result<bool, ApiError>;
}

impl Outbox {
    /// Records `signal`, to be announced once the change is done.
    pub fn push(&mut self, signal: Signal) {
        if !self.signals.contains(&signal) {
            self.signals.push(signal);
        }
    }

    /// Records a change to make once this one is committed.
    pub fn follow_with(&mut self, follow_up: Arc<dyn FollowUp>) {
        self.follow_ups.push(follow_up);
    }

    pub fn has_follow_ups(&self) -> bool {
        !self.follow_ups.is_empty()
    }

    /// The changes to follow, taken out.
    pub fn take_follow_ups(&mut self) -> Vec<Arc<dyn FollowUp>> {
        std::mem::take(&mut self.follow_ups)
    }

    /// On Postgres, announces the signals to the other instances, all in
    /// one statement: once per request rather than once per signal inside
    /// its transactions (a move has two). Called when the change is done,
    /// committed or not; a wake-up for nothing costs a waiter one read. A
    /// failure to announce is logged: the other instances' waiters then
    /// see the change when their wait times out.
    pub fn announce(&self, conn: &mut DbConnection) {
        let DbConnection::Postgresql(pg) = conn else {
            return;
        };
        if self.signals.is_empty() {
            return;
        }
        let signals: Vec<&str> = self.signals.iter().map(|s| &**s).collect();
        let announced = Announcement(signals).execute(pg);
        if let Err(error) = announced {
            tracing::warn!(%error, "changes not announced to the other instances");
        }
    }
}

/// `SELECT pg_notify(channel, signal) FROM unnest(signals) AS signal`,
/// written out so that the connection keeps it prepared (Diesel prepares
/// raw SQL on every use): it runs once a move.
struct Announcement<'a>(Vec<&'a str>);

impl QueryId for Announcement<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl QueryFragment<Pg> for Announcement<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_sql("SELECT pg_notify(");
        out.push_bind_param::<Text, _>(CHANNEL)?;
        out.push_sql(", signal) FROM unnest(");
        out.push_bind_param::<Array<Text>, _>(&self.0)?;
        out.push_sql(") AS signal");
        Ok(())
    }
}

impl RunQueryDsl<PgConnection> for Announcement<'_> {}

/// This instance's hub: who waits for which signal. A publish wakes only
/// the waiters of that signal, so that ten thousand held long polls cost a
/// move nothing but its own game's.
#[derive(Debug, Clone)]
pub struct Hub {
    waiting: Arc<Mutex<HashMap<Signal, broadcast::Sender<()>>>>,
    /// How many waits are parked in `changed` now: what a held request
    /// costs, and what tests wait for before they change something.
    parked: Arc<AtomicUsize>,
    /// Held by every clone: the Postgres relay stops when the last is gone.
    alive: Arc<()>,
}

impl Default for Hub {
    fn default() -> Hub {
        Hub {
            waiting: Arc::default(),
            parked: Arc::default(),
            alive: Arc::new(()),
        }
    }
}

/// A wait for one signal, begun when made: a signal published after it
/// was made is not missed, however late `changed` is called.
#[derive(Debug)]
pub struct Watch {
    receiver: broadcast::Receiver<()>,
    parked: Arc<AtomicUsize>,
}

impl Watch {
    /// Waits until the signal is published or `timeout` passes; whether it was.
    pub async fn changed(&mut self, timeout: Duration) -> bool {
        let _parked = Parked::new(&self.parked);
        match actix_web::rt::time::timeout(timeout, self.receiver.recv()).await {
            Ok(Ok(())) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => true,
            Err(_) | Ok(Err(broadcast::error::RecvError::Closed)) => false,
        }
    }
}

/// One parked wait, counted for as long as it lives: a request dropped
/// while waiting is uncounted too.
struct Parked(Arc<AtomicUsize>);

impl Parked {
    fn new(count: &Arc<AtomicUsize>) -> Parked {
        count.fetch_add(1, Ordering::SeqCst);
        Parked(count.clone())
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Hub {
    /// How many waits are parked now, on any signal.
    pub fn parked(&self) -> usize {
        self.parked.load(Ordering::SeqCst)
    }

    pub fn publish(&self, outbox: Outbox) {
        for signal in outbox.signals {
            self.wake(&signal);
        }
    }

    /// Wakes the waiters of `signal`, and forgets it if none is left.
    fn wake(&self, signal: &Signal) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sender) = waiting.get(signal)
            && sender.send(()).is_err()
        {
            waiting.remove(signal);
        }
    }

    /// Wakes every waiter: each reads again what it waits for, and waits on
    /// if nothing changed. For changes that may have been announced unheard.
    fn wake_all(&self) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        waiting.retain(|_, sender| sender.send(()).is_ok());
    }

    /// Begins a wait for `signal`.
    pub fn watch(&self, signal: &Signal) -> Watch {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        // A signal nobody waits for any more is dropped on its next publish;
        // sweep the rest now and then, so that the map stays small.
        if waiting.len() > 1024 && waiting.len().is_power_of_two() {
            waiting.retain(|_, sender| sender.receiver_count() > 0);
        }
        let sender = waiting
            .entry(signal.clone())
            .or_insert_with(|| broadcast::channel(1).0);
        Watch {
            receiver: sender.subscribe(),
            parked: self.parked.clone(),
        }
    }

    /// Relays the changes other instances announce on Postgres to this hub,
    /// from a thread of its own with its own connection, for as long as the
    /// hub lives. Reconnects after errors.
    pub fn listen_to_postgres(&self, url: String) {
        let hub = self.clone_without_life();
        let alive = Arc::downgrade(&self.alive);
        std::thread::Builder::new()
            .name("kingpost-listen".into())
            .spawn(move || {
                let mut first = true;
                while alive.strong_count() > 0 {
                    let listening = relay(&url, &hub, &alive, first);
                    first = false;
                    if let Err(error) = listening {
                        tracing::warn!(error = %format_args!("{error:#}"), "listening for changes on Postgres failed; retrying");
                        std::thread::sleep(Duration::from_secs(1));
                    }
                }
            })
            .expect("a thread for LISTEN");
    }

    /// The same hub, without keeping it alive: for the relay thread.
    fn clone_without_life(&self) -> Hub {
        Hub {
            waiting: self.waiting.clone(),
            parked: self.parked.clone(),
            alive: Arc::new(()),
        }
    }
}

/// Listens on a new connection to `url` (after a restart or a failover of
/// Postgres, whichever server is the primary now) and relays what it hears.
/// Changes announced while this instance was not listening are lost: after
/// a reconnection every waiter reads again.
fn relay(url: &str, hub: &Hub, alive: &std::sync::Weak<()>, first: bool) -> anyhow::Result<()> {
    let mut conn = PgConnection::establish(url)?;
    diesel::sql_query(format!("LISTEN {CHANNEL}")).execute(&mut conn)?;
    if !first {
        hub.wake_all();
    }
    while alive.strong_count() > 0 {
        for notification in conn.notifications_iter() {
            let notification = notification?;
            hub.wake(&notification.payload.into());
        }
        // libpq has no blocking wait here: poll the socket briefly.
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}
