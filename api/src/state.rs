//! What every request shares: the database and how to reach it (the
//! SQLite writers' turn among them), the JWT keys, the clock, the hub that
//! wakes waiting requests, and the budgets. No game lives here: any
//! instance can serve any request.

use std::{
    net::{IpAddr, SocketAddr},
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use actix_web::{http::header::HeaderMap, web};

use crate::{
    budgets::{ExpensiveReads, HeldSlots, ImportSlots, Limiter, RateLimits},
    clock::{Clock, Millis},
    credentials::JwtKeys,
    db::{self, DbConnection, DbPool, NeverYield, Yield, replicas::Replicas, timing},
    domain::{game, mail::Mailer, push::Pusher},
    error::ApiError,
    feeds::Feeds,
    notify::{FollowUp, Hub, Outbox},
    stored::GameId,
    views::GameView,
};

/// What every request shares. No game lives here: any instance can serve
/// any request.
#[derive(Debug)]
pub struct AppState {
    /// The primary: every change, and every read that must see the
    /// caller's own writes.
    pub pool: DbPool,
    /// Postgres replicas for the reads that may lag (none by default).
    pub replicas: Arc<Replicas>,
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
    /// The searches, explorer reads and exports running or waiting.
    pub expensive: Arc<ExpensiveReads>,
    /// Each account's new events, read once for all its streams.
    pub feeds: Feeds,
    /// Reverse proxies whose `X-Forwarded-For` is believed: the client is
    /// the address they name, for budgets and idempotency keys.
    pub trusted_proxies: Vec<IpAddr>,
    /// Whether webhooks may name private and loopback addresses
    /// (development and tests only; see `domain::webhook_targets`).
    pub allow_private_webhooks: bool,
    /// How mail is sent; none when the operator set up no SMTP server, and
    /// the routes that need mail say so.
    pub mailer: Option<Arc<Mailer>>,
    /// How Web Push is signed and sent; none when the operator set no VAPID
    /// key, and the routes that need push say so.
    pub pusher: Option<Arc<Pusher>>,
    /// Takes turns among this process's writers on SQLite, which has one
    /// writer at a time: waiting here is prompt, where SQLite's own busy
    /// handler sleeps in steps of up to 100 ms.
    pub sqlite_writer: Arc<WritersTurn>,
}

/// The SQLite writers' turn: one writer at a time in this process, and a
/// request's change before bulk work (an import's games, a collection's
/// deletion), which takes the turn only while no request waits for it and
/// gives it back, between two of its steps, as soon as one does. A move
/// then waits for at most one step of bulk work, never for all of it.
#[derive(Debug, Default)]
pub struct WritersTurn {
    turn: Mutex<()>,
    /// Requests waiting for the turn.
    waiting: AtomicUsize,
}

impl WritersTurn {
    /// The turn, for a request's change.
    pub fn take(&self) -> MutexGuard<'_, ()> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        turn
    }

    /// The turn, for a step of bulk work: once no request waits for it.
    pub fn take_for_bulk(&self) -> MutexGuard<'_, ()> {
        loop {
            if !self.requests_waiting() {
                let turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
                if !self.requests_waiting() {
                    return turn;
                }
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// Whether a request waits for the turn: bulk work holding it ends its
    /// step.
    pub fn requests_waiting(&self) -> bool {
        self.waiting.load(Ordering::SeqCst) > 0
    }
}

/// The least a step of bulk work runs before it yields: each step ends
/// with a commit, and a commit's sync costs milliseconds, so that steps of
/// one game each would make an import crawl and sync the disk as often as
/// the moves it lets through.
const LEAST_STEP: Duration = Duration::from_millis(3);

/// A step of bulk work in the writers' turn, begun at `started`.
struct BulkTurn<'a> {
    writers: &'a WritersTurn,
    started: Instant,
}

impl Yield for BulkTurn<'_> {
    fn now(&self) -> bool {
        self.writers.requests_waiting() && self.started.elapsed() >= LEAST_STEP
    }
}

/// How a change takes SQLite's writers' turn: as a request, or as a step
/// of bulk work (once no request waits for it, and told when one comes
/// to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    Request,
    Bulk,
}

/// A change's answer: read at once, or the change's result and the way to
/// answer it once its follow-ups are made.
enum Answer<T, U, G> {
    Now(U),
    After(T, G),
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

    // Every database call names its intent: a change (`write`,
    // `bulk_step`), a read that must see the caller's own writes
    // (`read_own`: the primary), or a read that may lag (`read_lagging`: a
    // replica when one keeps up). There is no call that names none.

    /// Runs a read that must see the caller's own latest writes, on the
    /// primary (see [`db::read_own`]).
    pub async fn read_own<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, ApiError> + Send + 'static,
    {
        db::read_own(&self.pool, f).await
    }

    /// Runs a read that may lag by the replicas' bound, on a replica when
    /// one keeps up (see [`db::read_lagging`]).
    pub async fn read_lagging<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: Fn(&mut DbConnection) -> Result<T, ApiError> + Send + 'static,
    {
        db::read_lagging(&self.pool, &self.replicas, f).await
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
    /// A change that left follow-ups is answered after them, on a read of
    /// its own, so that the answer shows what they made.
    pub async fn write_then<T, U, F, G>(&self, change: F, answer: G) -> Result<U, ApiError>
    where
        T: Send + 'static,
        U: Send + 'static,
        F: FnOnce(&mut DbConnection, &mut Outbox) -> Result<T, ApiError> + Send + 'static,
        G: FnOnce(&mut DbConnection, T) -> Result<U, ApiError> + Send + 'static,
    {
        let (result, follow_ups) = self
            .write_alone(
                Turn::Request,
                move |conn, outbox, _| change(conn, outbox),
                answer,
            )
            .await;
        self.follow_up(follow_ups).await;
        match result? {
            Answer::Now(answered) => Ok(answered),
            Answer::After(done, answer) => self.read_own(move |conn| answer(conn, done)).await,
        }
    }

    /// Makes the follow-ups of a committed change, and theirs, in turn:
    /// each prepared off the writers' turn and written, prepared again if
    /// what it read changed meanwhile (a few times; then the sweep's). A
    /// failure is logged, not answered: the change asked for is made. On
    /// SQLite each is written as a step of bulk work, in the writers' turn
    /// once no request waits for it and told when one comes to.
    pub async fn follow_up(&self, mut due: Vec<Arc<dyn FollowUp>>) {
        const ATTEMPTS: usize = 3;
        while let Some(follow_up) = due.pop() {
            for attempt in 1..=ATTEMPTS {
                let reading = follow_up.clone();
                let prepared = match self.read_own(move |conn| reading.prepare(conn)).await {
                    Ok(Some(prepared)) => prepared,
                    Ok(None) => break,
                    Err(error) => {
                        tracing::warn!(%error, ?follow_up, "a follow-up could not be prepared");
                        break;
                    }
                };
                let now = self.clock.now();
                let (written, more) = self
                    .write_alone(
                        Turn::Bulk,
                        move |conn, outbox, yielding| prepared.write(conn, outbox, now, yielding),
                        |_, done| Ok(done),
                    )
                    .await;
                due.extend(more);
                let written = written.map(|answer| match answer {
                    Answer::Now(done) | Answer::After(done, _) => done,
                });
                match written {
                    Ok(true) => break,
                    Ok(false) if attempt == ATTEMPTS => {
                        tracing::warn!(
                            ?follow_up,
                            "a follow-up kept meeting changes: left to the sweep"
                        );
                    }
                    Ok(false) => continue,
                    Err(error) => {
                        tracing::warn!(%error, ?follow_up, "a follow-up could not be written");
                        break;
                    }
                }
            }
        }
    }

    /// [`write_then`](Self::write_then) without its follow-ups, which it
    /// gives back, with the answer left to them when there are some; in
    /// the writers' turn as `turn` says.
    async fn write_alone<T, U, F, G>(
        &self,
        turn: Turn,
        change: F,
        answer: G,
    ) -> (Result<Answer<T, U, G>, ApiError>, Vec<Arc<dyn FollowUp>>)
    where
        T: Send + 'static,
        U: Send + 'static,
        F: FnOnce(&mut DbConnection, &mut Outbox, &dyn Yield) -> Result<T, ApiError>
            + Send
            + 'static,
        G: FnOnce(&mut DbConnection, T) -> Result<U, ApiError> + Send + 'static,
    {
        let pool = self.pool.clone();
        let sqlite_writer = self.sqlite_writer.clone();
        let blocked = web::block(timing::in_callers_span(move || {
            let mut outbox = Outbox::default();
            let asked = Instant::now();
            let result = pool.get().map_err(ApiError::from).and_then(|mut conn| {
                let pool_wait_us = timing::micros_since(asked);
                let turn_asked = Instant::now();
                let sqlite = matches!(**conn, DbConnection::Sqlite(_));
                let held = sqlite.then(|| match turn {
                    Turn::Request => sqlite_writer.take(),
                    Turn::Bulk => sqlite_writer.take_for_bulk(),
                });
                let turn_wait_us = timing::micros_since(turn_asked);
                let started = Instant::now();
                let bulk = BulkTurn {
                    writers: &sqlite_writer,
                    started,
                };
                let yielding: &dyn Yield = if sqlite && turn == Turn::Bulk {
                    &bulk
                } else {
                    &NeverYield
                };
                let done = change(&mut conn, &mut outbox, yielding);
                drop(held);
                tracing::debug!(
                    target: timing::TARGET,
                    pool_wait_us,
                    turn_wait_us,
                    change_us = timing::micros_since(started),
                    "change written"
                );
                outbox.announce(&mut conn);
                let done = done?;
                if outbox.has_follow_ups() {
                    Ok(Answer::After(done, answer))
                } else {
                    answer(&mut conn, done).map(Answer::Now)
                }
            });
            (result, outbox)
        }))
        .await;
        let (result, mut outbox) = match blocked {
            Ok(done) => done,
            Err(error) => return (Err(error.into()), Vec::new()),
        };
        // Only a committed change is followed.
        let follow_ups = if result.is_ok() {
            outbox.take_follow_ups()
        } else {
            Vec::new()
        };
        self.hub.publish(outbox);
        (result, follow_ups)
    }

    /// Runs one step of bulk work with a pooled connection on a blocking
    /// thread: on SQLite in the writers' turn once no request waits for it,
    /// `step` told by its [`Yield`] when one comes to wait; on Postgres,
    /// whose writers wait only for the rows they share, at once and never
    /// told to yield. Bulk work is a loop of such steps, each its own
    /// transaction.
    pub async fn bulk_step<T, F>(&self, step: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection, &dyn Yield) -> Result<T, ApiError> + Send + 'static,
    {
        let pool = self.pool.clone();
        let writers = self.sqlite_writer.clone();
        web::block(timing::in_callers_span(move || {
            let mut conn = pool.get()?;
            if matches!(**conn, DbConnection::Sqlite(_)) {
                let _turn = writers.take_for_bulk();
                let yielding = BulkTurn {
                    writers: &writers,
                    started: Instant::now(),
                };
                step(&mut conn, &yielding)
            } else {
                step(&mut conn, &NeverYield)
            }
        }))
        .await?
    }

    /// A game as clients read it. Read outside the writers' turn (SQLite
    /// has one writer at a time): only a game due to be lost on time needs
    /// a write.
    pub async fn game_view(&self, game_id: GameId, now: Millis) -> Result<GameView, ApiError> {
        let id = game_id.clone();
        if let Some(view) = self
            .read_own(move |conn| game::view_unless_due(conn, &id, now))
            .await?
        {
            return Ok(view);
        }
        self.write(move |conn, outbox| game::view(conn, outbox, &game_id, now))
            .await
    }
}
