//! Starting the service: logging, the database, the signing key, the
//! HTTP server.

use std::{io::IsTerminal, sync::Arc, time::Duration};

use actix_web::{HttpServer, web};
use anyhow::Context;
use tracing::Instrument;
use tracing_subscriber::{EnvFilter, fmt::format::FmtSpan};

use crate::{
    app,
    budgets::{
        self, ConnectionSlots, ExpensiveReads, HeldSlots, Limiter, PeerSocket, RateLimits,
        descriptors_for_connections,
    },
    clock::SystemClock,
    credentials::{JwtKeys, new_secret},
    db::{
        self, Backend, DbPool,
        replicas::{self, Replicas},
    },
    deletions,
    domain::{
        game,
        mail::{self, Mailer},
        notifications, pgn,
        push::{self, Pusher},
        search, tournament,
        webhooks::{self, Due},
    },
    error::ApiError,
    models::setting,
    notify::Hub,
    presence,
    secret::Secret,
    state::AppState,
    workers,
};

/// The SQLite file used when no database URL is given.
pub const DEFAULT_DATABASE_URL: &str = "kingpost.sqlite3";
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";

/// Structured logs on stderr; every request closes its span with one line
/// carrying its method, route, status and latency. `RUST_LOG` filters.
pub fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}

/// Opens the database at `url` and brings its schema up to date.
pub fn open_database(url: &str) -> anyhow::Result<DbPool> {
    open_database_with(url, db::PoolSettings::for_backend(Backend::of_url(url)))
}

/// Opens and migrates the database with a pool of the given size.
pub fn open_database_with(url: &str, settings: db::PoolSettings) -> anyhow::Result<DbPool> {
    let pool = db::connect_with(url, settings)?;
    let mut conn = pool
        .get()
        .with_context(|| format!("cannot connect to {url}"))?;
    let applied = db::run_migrations(&mut conn)?;
    if applied > 0 {
        tracing::info!(applied, "database migrated");
    }
    // What a migration cannot do in SQL: the moves of the games stored
    // before packed in their rows, their positions indexed;
    let packed = game::moves::pack_legacy_moves(&mut conn).context("packing stored moves")?;
    if packed > 0 {
        tracing::info!(packed, "stored games' moves packed");
        db::refresh_statistics(&mut conn).context("refreshing statistics")?;
    }
    // the positions an import that stopped before its end staged, indexed;
    let indexed = pgn::index_staged(&mut conn).context("indexing staged positions")?;
    if indexed > 0 {
        tracing::info!(indexed, "positions staged by an import indexed");
    }
    // players' names folded as searches compare them (accents off), for
    // the games stored before.
    let folded = search::fold_stored_names(&mut conn).context("folding players' names")?;
    if folded > 0 {
        tracing::info!(folded, "players' names of stored games folded for search");
    }
    Ok(pool)
}

/// The JWT signing key: `secret` when given, otherwise one generated once
/// and kept in the database (a development default, said in a warning).
pub fn jwt_keys(pool: &DbPool, secret: Option<&str>) -> anyhow::Result<JwtKeys> {
    if let Some(secret) = secret.filter(|s| !s.is_empty()) {
        return JwtKeys::from_secret(secret.as_bytes());
    }
    tracing::warn!(
        "KINGPOST_JWT_SECRET is not set: signing tokens with a secret generated and kept in the database. \
         Set KINGPOST_JWT_SECRET in production."
    );
    let mut conn = pool.get().context("database")?;
    let secret =
        setting::get_or_insert(&mut conn, "jwt_secret", &new_secret()).context("database")?;
    JwtKeys::from_secret(secret.as_bytes())
}

/// Starts the tournaments whose sign-up has closed, ends the Swiss rounds
/// whose deadline has passed (adjudicating), ends on time the games
/// whose deadline has passed (and the team-match games that forfeits),
/// pairs the Swiss rounds and finishes the account deletions that were
/// interrupted; how many games ended on time. The games are swept a
/// step at a time, each step its own turn at the writers, its wake-ups sent
/// as it ends: moves made meanwhile wait for a step, not the whole sweep.
pub async fn sweep_once(state: &AppState) -> Result<usize, ApiError> {
    let now = state.clock.now();
    state
        .write(move |conn, outbox| tournament::lifecycle::start_due(conn, outbox, now))
        .await?;
    state
        .write(move |conn, outbox| tournament::lifecycle::close_due_rounds(conn, outbox, now))
        .await?;
    let mut sweep = game::Sweep::new(now, game::SWEEP_STEP);
    loop {
        let (more, stepped) = state
            .write(move |conn, outbox| Ok((sweep.step(conn, outbox)?, sweep)))
            .await?;
        sweep = stepped;
        if !more {
            break;
        }
    }
    // A game lost on time in a team match forfeits its board's other game.
    state
        .write(move |conn, outbox| tournament::team_match::forfeit_due(conn, outbox, now))
        .await?;
    // Swiss rounds whose pairing, or the writing of whose games, a stop
    // interrupted.
    let due = state.read_own(tournament::swiss::rounds_due).await?;
    state.follow_up(due).await;
    deletions::finish_interrupted(state).await?;
    Ok(sweep.ended())
}

/// Attempts the webhook deliveries that are due (as many as one
/// instance sends at once), and waits for them; how many.
pub async fn deliver_once(state: &AppState, sender: &webhooks::Sender) -> Result<usize, ApiError> {
    let now = state.clock.now();
    let due = state
        .write(move |conn, _| webhooks::claim_due(conn, now, &mut webhooks::InFlight::default()))
        .await?;
    let count = due.len();
    let attempts = due.into_iter().map(|due| attempt(state, sender, due));
    for recorded in futures_util::future::join_all(attempts).await {
        recorded?;
    }
    Ok(count)
}

/// Sends a delivery and records how it went.
async fn attempt(state: &AppState, sender: &webhooks::Sender, due: Due) -> Result<(), ApiError> {
    let result = sender.send(&due).await;
    let done = state.clock.now();
    state
        .write(move |conn, _| webhooks::record(conn, &due, result, done))
        .await
}

/// Delivers webhooks until the process stops: every second, the deliveries
/// due that this instance has room for, each sent on its own and its place
/// freed as it ends, so that a slow endpoint holds only its own places.
/// Every instance may run one: each delivery is claimed by a conditional
/// write.
async fn deliver_forever(state: web::Data<AppState>) {
    let sender = webhooks::Sender::new(state.allow_private_webhooks);
    let in_flight = Arc::new(std::sync::Mutex::new(webhooks::InFlight::default()));
    let mut ticks = actix_web::rt::time::interval(Duration::from_secs(1));
    loop {
        ticks.tick().await;
        let (now, places) = (state.clock.now(), in_flight.clone());
        let claimed = state
            .write(move |conn, _| {
                let mut places = places.lock().unwrap_or_else(|p| p.into_inner());
                webhooks::claim_due(conn, now, &mut places)
            })
            .await;
        let claimed = match claimed {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::error!(%error, "claiming webhook deliveries failed");
                continue;
            }
        };
        for due in claimed {
            let (state, sender, places) = (state.clone(), sender.clone(), in_flight.clone());
            actix_web::rt::spawn(async move {
                let account = due.account_id.clone();
                let webhook = due.delivery.webhook_id.clone();
                let span =
                    tracing::debug_span!("webhook_delivery", %webhook, delivery = due.delivery.id);
                if let Err(error) = attempt(&state, &sender, due).instrument(span).await {
                    // Its lease runs out, and another attempt follows.
                    tracing::error!(%error, %webhook, "recording a webhook delivery failed");
                }
                let mut places = places.lock().unwrap_or_else(|p| p.into_inner());
                places.release(&account, &webhook);
            });
        }
    }
}

/// How many mails one instance claims at a time.
const MAIL_BATCH: i64 = 20;

/// Sends the outbox's due mails every two seconds (at once again while a
/// batch comes back full), each leased to this
/// instance while it is sent: a mail server that is down or slow delays
/// mail and nothing else.
async fn mail_forever(state: web::Data<AppState>) {
    let Some(mailer) = state.mailer.clone() else {
        return;
    };
    let mut ticks = actix_web::rt::time::interval(Duration::from_secs(2));
    let mut full = false;
    loop {
        if !full {
            ticks.tick().await;
        }
        let now = state.clock.now();
        // Each digest is written in the writers' turn: it is a change.
        match state
            .read_own(move |conn| notifications::digests_due(conn, now, 20))
            .await
        {
            Ok(due) => {
                for row in due {
                    let (writer, keys) = (mailer.clone(), state.clone());
                    let written = state
                        .write(move |conn, _| {
                            notifications::send_digest(conn, &writer.links(&keys.keys), &row, now)
                        })
                        .await;
                    if let Err(error) = written {
                        tracing::error!(%error, "writing a digest failed");
                    }
                }
            }
            Err(error) => tracing::error!(%error, "reading the digests due failed"),
        }
        // The lease takes SQLite's writers' turn, the reads that write the
        // mails do not.
        let (links, keys) = (mailer.clone(), state.clone());
        let claimed = state
            .write_then(
                move |conn, _| mail::lease_due(conn, now, MAIL_BATCH),
                move |conn, leased| Ok(mail::compose(conn, &links.links(&keys.keys), leased)),
            )
            .await;
        let claimed = match claimed {
            Ok(claimed) => claimed,
            Err(error) => {
                // Leased and unwritten, they are tried again once their
                // lease runs out.
                tracing::error!(%error, "claiming mail failed");
                full = false;
                continue;
            }
        };
        full = claimed.len() as i64 == MAIL_BATCH;
        // Sent side by side, over the transport's pooled connections; their
        // outcomes recorded together.
        let sends = claimed.into_iter().map(|(due, letter)| {
            let sender = mailer.clone();
            let span = tracing::debug_span!("mail", id = due.id, kind = %due.kind);
            async move {
                let sent = web::block(move || {
                    let outcome = letter.and_then(|letter| sender.send(&due.to_address, &letter));
                    (due, outcome)
                });
                match sent.await {
                    Ok((due, outcome)) => {
                        if let Err(error) = &outcome {
                            tracing::warn!(parent: &span, %error, attempt = due.attempts, "mail not sent; it is retried");
                        }
                        Some((due, outcome))
                    }
                    Err(error) => {
                        tracing::error!(parent: &span, %error, "sending mail failed");
                        None
                    }
                }
            }
        });
        let attempts: Vec<_> = futures_util::future::join_all(sends)
            .await
            .into_iter()
            .flatten()
            .collect();
        let now = state.clock.now();
        if let Err(error) = state
            .write(move |conn, _| mail::record(conn, &attempts, now))
            .await
        {
            // Their leases run out, and they are sent again.
            tracing::error!(%error, "recording mails' sending failed");
        }
    }
}

/// How many pushes one instance claims at a time.
const PUSH_BATCH: i64 = 100;

/// Sends the due pushes every second (at once again while a batch comes
/// back full), each leased to this instance while it is sent, a batch at a
/// time, concurrently: a push service that is slow delays its own pushes
/// only. A batch is claimed, and its outcomes recorded, in one transaction
/// each.
async fn push_forever(state: web::Data<AppState>) {
    let Some(pusher) = state.pusher.clone() else {
        return;
    };
    let mut ticks = actix_web::rt::time::interval(Duration::from_secs(1));
    let mut full = false;
    loop {
        if !full {
            ticks.tick().await;
        }
        let now = state.clock.now();
        // The lease takes SQLite's writers' turn, the reads that prepare
        // the batch do not.
        let claimer = state.clone();
        let claimed = state
            .write_then(
                move |conn, _| push::lease_due(conn, now, PUSH_BATCH),
                move |conn, leased| push::prepare(conn, &claimer.keys, leased, PUSH_BATCH),
            )
            .await;
        let mut claim = match claimed {
            Ok(claim) => claim,
            Err(error) => {
                // Leased and unprepared, they are tried again once their
                // lease runs out.
                tracing::error!(%error, "claiming pushes failed");
                full = false;
                continue;
            }
        };
        full = claim.full;
        let sends = std::mem::take(&mut claim.ready).into_iter().map(|ready| {
            let pusher = pusher.clone();
            async move {
                let outcome = pusher.send(&ready).await;
                if outcome != push::Outcome::Sent {
                    tracing::debug!(id = ready.push.id, ?outcome, "push not delivered");
                }
                (ready, outcome)
            }
        });
        let attempts = futures_util::future::join_all(sends).await;
        let now = state.clock.now();
        if let Err(error) = state
            .write(move |conn, _| push::record(conn, &claim, &attempts, now))
            .await
        {
            // Their leases run out, and they are sent again.
            tracing::error!(%error, "recording pushes failed");
        }
    }
}

/// Sweeps every `interval` until the process stops. Every instance may run
/// one: each game is ended by a write conditional on its state.
async fn sweep_forever(state: web::Data<AppState>, interval: Duration) {
    let mut ticks = actix_web::rt::time::interval(interval);
    loop {
        ticks.tick().await;
        match sweep_once(&state)
            .instrument(tracing::debug_span!("sweep"))
            .await
        {
            Ok(0) => {}
            Ok(ended) => tracing::info!(ended, "games ended on time"),
            Err(error) => tracing::error!(%error, "sweeping for timeouts failed"),
        }
    }
}

/// Fixes the size from which glibc's allocator maps memory of its own for
/// a block (and unmaps it when freed) at 128 KiB. Left to itself, glibc
/// raises that size after the first large block is freed, and from then on
/// keeps every argon2 block (19 MiB a password) in its arenas, fragmented:
/// thirty sign-ups took the server from 47 MiB to 390 MiB resident, and
/// with the size fixed it stays at 47 MiB.
#[allow(unsafe_code)] // A tunable of the allocator: see SAFETY.
fn keep_allocations_from_piling_up() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator (glibc takes its
    // own lock for it); `serve` calls this first, before it opens the
    // database pool or starts any thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// How mail is sent.
#[derive(Clone)]
pub struct MailOptions {
    /// `smtp://`, `smtp://...?tls=required` (STARTTLS) or `smtps://`, with
    /// `user:password@` when the server asks for them.
    pub smtp_url: String,
    /// The sender every mail names: `kingpost <noreply@example.org>`.
    pub from: String,
    /// Where players reach the web client: the links in mails point there.
    pub public_url: String,
}

impl std::fmt::Debug for MailOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold the SMTP password.
        f.debug_struct("MailOptions")
            .field("from", &self.from)
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

/// How Web Push is signed.
#[derive(Debug, Clone)]
pub struct PushOptions {
    /// The VAPID private key, base64url.
    pub private_key: Secret,
    /// `mailto:` or `https:`: whom push services may contact.
    pub subject: String,
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: String,
    pub database_url: String,
    pub jwt_secret: Option<Secret>,
    pub sweep_interval: Duration,
    pub limits: RateLimits,
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Let webhooks reach private and loopback addresses: development only.
    pub allow_private_webhooks: bool,
    /// How mail is sent: none, and the server sends no e-mail.
    pub mail: Option<MailOptions>,
    /// How push is signed: none, and the server sends no Web Push.
    pub push: Option<PushOptions>,
    /// SQLite's page cache a connection, in MiB (see [`db::PoolSettings`]).
    pub sqlite_cache_mib: Option<u32>,
    /// Postgres replicas for the reads that may lag, and how far behind
    /// one may be (see [`db::replicas`]).
    pub read_database_urls: Vec<String>,
    pub max_replica_lag: Duration,
}

/// Keeps a new connection if its address has fewer than
/// [`budgets::CONNECTIONS_PER_ADDRESS`] open (a trusted proxy's are not
/// counted), its place held in the connection's data until it closes;
/// otherwise closes it at once. The connection's data also keeps its
/// socket, for held requests to learn when their client has gone.
fn admit(
    slots: &Arc<ConnectionSlots>,
    trusted_proxies: &[std::net::IpAddr],
    conn: &dyn std::any::Any,
    data: &mut actix_web::dev::Extensions,
) {
    let Some(stream) = conn.downcast_ref::<actix_web::rt::net::TcpStream>() else {
        return;
    };
    data.insert(PeerSocket(std::os::fd::AsRawFd::as_raw_fd(stream)));
    let Ok(peer) = stream.peer_addr() else {
        return;
    };
    if trusted_proxies.contains(&peer.ip()) {
        return;
    }
    match slots.acquire(peer.ip()) {
        Some(slot) => {
            data.insert(slot);
        }
        None => {
            tracing::debug!(%peer, "connection refused: its address has as many open as allowed");
            let _ = socket2::SockRef::from(stream).shutdown(std::net::Shutdown::Both);
        }
    }
}

/// Serves the API on `options.bind` until the process is stopped, sweeping
/// for timeouts every `options.sweep_interval`.
pub fn serve(options: ServeOptions) -> anyhow::Result<()> {
    let ServeOptions {
        bind,
        database_url,
        jwt_secret,
        sweep_interval,
        limits,
        trusted_proxies,
        allow_private_webhooks,
        mail,
        push,
        sqlite_cache_mib,
        read_database_urls,
        max_replica_lag,
    } = options;
    keep_allocations_from_piling_up();
    let (bind, database_url, jwt_secret) = (
        bind.as_str(),
        database_url.as_str(),
        jwt_secret.as_ref().map(Secret::expose),
    );
    let backend = Backend::of_url(database_url);
    if backend == Backend::Postgres && sqlite_cache_mib.is_some() {
        anyhow::bail!(
            "the SQLite page cache was set for a Postgres database: \
             Postgres sizes its own (shared_buffers)"
        );
    }
    let pool = open_database_with(
        database_url,
        db::PoolSettings {
            sqlite_cache_mib,
            sqlite_checkpoints_apart: backend == Backend::Sqlite,
            ..db::PoolSettings::for_backend(backend)
        },
    )?;
    let _checkpoints = match backend {
        Backend::Sqlite => Some(db::checkpoint_apart(database_url)?),
        Backend::Postgres => None,
    };
    if backend == Backend::Sqlite && !read_database_urls.is_empty() {
        anyhow::bail!(
            "read replicas were named for a SQLite database: replicas are Postgres \
             streaming standbys of a Postgres primary"
        );
    }
    let replicas = Arc::new(Replicas::open(&read_database_urls, max_replica_lag)?);
    let keys = jwt_keys(&pool, jwt_secret)?;
    let hub = Hub::default();
    if backend == Backend::Postgres {
        hub.listen_to_postgres(database_url.to_owned());
    }
    let descriptors = budgets::raise_descriptor_limit();
    let held = Arc::new(HeldSlots::for_descriptor_limit(descriptors));
    tracing::info!(
        descriptors,
        held = held.capacity(),
        "open descriptors allowed, and requests that may be held open"
    );
    let mailer = match mail {
        Some(mail) => {
            let mailer = Mailer::new(&mail.smtp_url, &mail.from, &mail.public_url)?;
            tracing::info!(from = %mail.from, "e-mail is sent through SMTP");
            Some(Arc::new(mailer))
        }
        None => {
            tracing::warn!(
                "e-mail is off: no --smtp-url. Players cannot give an address; set \
                 KINGPOST_SMTP_URL and KINGPOST_MAIL_FROM to send mail."
            );
            None
        }
    };
    let pusher = match push {
        Some(push) => {
            let pusher = Pusher::new(
                push.private_key.expose(),
                &push.subject,
                allow_private_webhooks,
            )?;
            tracing::info!(public_key = %pusher.public_key(), "Web Push is on");
            Some(Arc::new(pusher))
        }
        None => {
            tracing::warn!(
                "Web Push is off: no VAPID key. Make one with `kingpost vapid-key` and set \
                 KINGPOST_VAPID_PRIVATE_KEY to push notifications to browsers."
            );
            None
        }
    };
    let state = web::Data::new(AppState {
        pool,
        replicas,
        keys,
        clock: Arc::new(SystemClock),
        hub,
        limits,
        limiter: Limiter::default(),
        import_slots: Default::default(),
        held,
        expensive: Arc::new(ExpensiveReads::for_this_machine()),
        feeds: Default::default(),
        trusted_proxies: trusted_proxies.clone(),
        allow_private_webhooks,
        mailer,
        pusher,
        sqlite_writer: Default::default(),
    });
    let sweeper_state = state.clone();
    let mailing = sweeper_state.mailer.is_some();
    let pushing = sweeper_state.pusher.is_some();
    let connections = Arc::new(ConnectionSlots::default());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Each worker stops accepting at its share of the descriptors: past
    // it, new connections wait in the listen queue rather than fail the
    // process's other files with EMFILE.
    let per_worker = descriptors_for_connections(descriptors) as usize / workers;
    let server = HttpServer::new(move || app::build(state.clone()))
        .workers(workers)
        .max_connections(per_worker.max(64))
        .on_connect(move |conn, data| admit(&connections, &trusted_proxies, conn, data))
        .bind(bind)
        .with_context(|| format!("cannot listen on {bind}"))?;
    for address in server.addrs() {
        tracing::info!("kingpost listening on http://{address} (docs at http://{address}/docs)");
    }
    let delivering = sweeper_state.clone();
    std::thread::Builder::new()
        .name("delivery".to_owned())
        .spawn(move || deliver_in_background(delivering, mailing, pushing))
        .context("cannot start the delivery thread")?;
    actix_web::rt::System::new()
        .block_on(async move {
            actix_web::rt::spawn(presence::keep_online_forever(sweeper_state.clone()));
            if !sweeper_state.replicas.is_empty() {
                actix_web::rt::spawn(check_replicas_forever(sweeper_state.clone()));
            }
            actix_web::rt::spawn(sweep_forever(sweeper_state, sweep_interval));
            server.run().await
        })
        .context("server")
}

/// Checks the replicas against the primary twice a second, for as long as
/// the server runs: which of them the reads that may lag go to.
async fn check_replicas_forever(state: web::Data<AppState>) {
    let mut ticks = actix_web::rt::time::interval(replicas::CHECK_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let position = db::read_own(&state.pool, |conn| {
            replicas::write_position(conn).map_err(|e| ApiError::Unavailable {
                retry_after: 1,
                cause: format!("the primary's write position: {e:#}"),
            })
        })
        .await;
        let position = match position {
            Ok(position) => position,
            Err(error) => {
                tracing::warn!(%error, "checking the replicas failed");
                continue;
            }
        };
        let replicas = state.replicas.clone();
        if let Err(error) = web::block(move || replicas.check(position)).await {
            tracing::warn!(%error, "checking the replicas failed");
        }
    }
}

/// How much less CPU the delivery thread asks for than the requests' (a
/// nice value: 10 weighs about a tenth of the default's share).
const DELIVERY_NICENESS: i32 = 10;

/// Runs the delivery loops (webhooks; mail and push where configured) on
/// this thread, at a lower CPU priority: on a machine that is busy,
/// requests come first and notifications a little later. The threads it
/// starts for database work inherit the priority.
fn deliver_in_background(state: web::Data<AppState>, mailing: bool, pushing: bool) {
    workers::lower_this_threads_priority(DELIVERY_NICENESS);
    actix_web::rt::System::new().block_on(async move {
        let mut loops = vec![actix_web::rt::spawn(deliver_forever(state.clone()))];
        if pushing {
            loops.push(actix_web::rt::spawn(push_forever(state.clone())));
        }
        if mailing {
            loops.push(actix_web::rt::spawn(mail_forever(state)));
        }
        futures_util::future::join_all(loops).await;
    });
}
