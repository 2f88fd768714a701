//! Postgres streaming replicas for the reads that may lag: PGN exports,
//! the archive, search and the explorer, profiles, leaderboards, tournament
//! pages. Each replica is checked every [`CHECK_EVERY`] by its replay
//! position against the primary's: a replica is used while it has replayed
//! everything the primary had written `max_lag` ago, and skipped (its reads
//! go to the primary) while it is down or further behind.
//!
//! Lag is measured by LSN rather than by `pg_last_xact_replay_timestamp()`:
//! the timestamp is that of the last transaction replayed, so an idle
//! primary makes an up-to-date replica look ever later, and a replica cut
//! from its primary whose last replay was recent looks current. Comparing
//! positions needs neither clock.

use std::{
    collections::VecDeque,
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::Context;
use diesel::{QueryableByName, RunQueryDsl, sql_types::Text};

use super::{Backend, DbConnection, DbPool, PoolSettings};

/// How often each instance checks its replicas.
pub const CHECK_EVERY: Duration = Duration::from_millis(500);

/// How long a check's verdict holds: a replica last found usable longer
/// ago than this (its check hangs, or the checking job stopped) is
/// skipped, so that reads never follow a verdict nobody renews.
const VERDICT_HOLDS: Duration = Duration::from_secs(3);

/// How long a read waits for a replica's connection before it goes to the
/// primary: a replica that stopped answering costs a read this much once,
/// before the next check skips it.
const REPLICA_CONNECTION_TIMEOUT: Duration = Duration::from_secs(2);

/// The replicas of this instance, none when the operator named none.
#[derive(Debug, Default)]
pub struct Replicas {
    members: Vec<Replica>,
    /// The next replica a read tries first: reads are spread in turn.
    next: AtomicUsize,
    max_lag: Duration,
    /// The primary's write positions of the last `max_lag` and a little
    /// more, oldest first: a replica is usable when it has replayed past
    /// the newest of them at least `max_lag` old.
    primary_positions: Mutex<VecDeque<(Instant, u64)>>,
}

/// One replica: its pool, and when the last check found it usable.
#[derive(Debug)]
pub struct Replica {
    /// Its address without credentials, for the logs.
    pub shown: String,
    pub pool: DbPool,
    /// When the last check found it usable; none when it did not, or
    /// since a read on it failed.
    found_usable_at: Mutex<Option<Instant>>,
}

impl Replica {
    /// Skips this replica until the next check finds it usable again: a
    /// read on it failed as a replica that went away does.
    pub fn set_aside(&self) {
        if self.found_usable(None).is_some() {
            tracing::warn!(replica = %self.shown, "replica set aside: reads go to the primary");
        }
    }

    fn is_usable(&self) -> bool {
        let found = *self
            .found_usable_at
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        found.is_some_and(|at| at.elapsed() < VERDICT_HOLDS)
    }

    /// Records a check's verdict; the one before.
    fn found_usable(&self, at: Option<Instant>) -> Option<Instant> {
        let mut found = self
            .found_usable_at
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        std::mem::replace(&mut *found, at)
    }
}

impl Replicas {
    /// Opens a pool on each replica's URL, without connecting yet: a
    /// replica down at start is skipped until it answers.
    pub fn open(urls: &[String], max_lag: Duration) -> anyhow::Result<Replicas> {
        let mut members = Vec::with_capacity(urls.len());
        for url in urls {
            anyhow::ensure!(
                Backend::of_url(url) == Backend::Postgres,
                "a read replica is a Postgres database: {} is not a postgres:// URL",
                shown(url)
            );
            let settings = PoolSettings {
                connection_timeout: REPLICA_CONNECTION_TIMEOUT,
                ..PoolSettings::for_backend(Backend::Postgres)
            };
            let url = with_liveness(url);
            let pool = super::pool_builder(settings)
                .min_idle(Some(0))
                .build_unchecked(super::manager(&url, settings));
            members.push(Replica {
                shown: shown(&url),
                pool,
                found_usable_at: Mutex::new(None),
            });
        }
        Ok(Replicas {
            members,
            next: AtomicUsize::new(0),
            max_lag,
            primary_positions: Mutex::default(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The replicas found usable at the last check, the next in turn first.
    pub fn usable(&self) -> impl Iterator<Item = &Replica> {
        let count = self.members.len();
        let first = if count == 0 {
            0
        } else {
            self.next.fetch_add(1, Ordering::Relaxed) % count
        };
        (0..count)
            .map(move |i| &self.members[(first + i) % count])
            .filter(|replica| replica.is_usable())
    }

    /// Checks every replica against `position`, the primary's write
    /// position read just now ([`write_position`]): a blocking call, for
    /// the checking job.
    pub fn check(&self, position: u64) {
        let now = Instant::now();
        let required = {
            let mut positions = self
                .primary_positions
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            positions.push_back((now, position));
            // Keep the newest position at least `max_lag` old, and those after.
            while positions.len() > 1 && now.duration_since(positions[1].0) >= self.max_lag {
                positions.pop_front();
            }
            let (at, oldest) = positions[0];
            // Until the first position is old enough, a replica must have
            // replayed what the primary has now.
            if now.duration_since(at) >= self.max_lag {
                oldest
            } else {
                position
            }
        };
        for replica in &self.members {
            let usable = match replayed_position(replica) {
                Ok(replayed) => replayed >= required,
                Err(error) => {
                    tracing::debug!(replica = %replica.shown, error = %format_args!("{error:#}"), "replica not answering");
                    false
                }
            };
            let was = replica.found_usable(usable.then(Instant::now)).is_some();
            if was != usable {
                if usable {
                    tracing::info!(replica = %replica.shown, "replica in use for reads that may lag");
                } else {
                    tracing::warn!(replica = %replica.shown, max_lag_ms = self.max_lag.as_millis() as u64, "replica down or lagging: its reads go to the primary");
                }
            }
        }
    }
}

#[derive(QueryableByName)]
struct Position {
    #[diesel(sql_type = Text)]
    lsn: String,
}

/// The primary's current write position. On a standby (the primary URL
/// reached one during a failover) its replay position.
pub fn write_position(conn: &mut DbConnection) -> anyhow::Result<u64> {
    let row: Position = diesel::sql_query(
        "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() \
         ELSE pg_current_wal_lsn() END)::text AS lsn",
    )
    .get_result(conn)?;
    parse_lsn(&row.lsn)
}

/// How far a replica has replayed; a server no longer in recovery (a
/// promoted standby) has everything it wrote.
fn replayed_position(replica: &Replica) -> anyhow::Result<u64> {
    let mut conn = replica.pool.get()?;
    write_position(&mut conn)
}

/// An LSN as Postgres writes it, `16/B374D848`: the high and low 32 bits.
fn parse_lsn(text: &str) -> anyhow::Result<u64> {
    let (high, low) = text
        .split_once('/')
        .with_context(|| format!("not an LSN: {text}"))?;
    let high = u64::from_str_radix(high, 16).with_context(|| format!("not an LSN: {text}"))?;
    let low = u64::from_str_radix(low, 16).with_context(|| format!("not an LSN: {text}"))?;
    Ok(high << 32 | low)
}

/// libpq's settings that bound how long a replica that went silent (a
/// host gone, a network cut, where nothing refuses the connection) can
/// hold a read: a connection attempt gives up after 2 s, and a connection
/// whose peer stops answering is found dead within about 10 s rather than
/// the system's two hours. Those the operator set in the URL are kept.
const LIVENESS: &[(&str, &str)] = &[
    ("connect_timeout", "2"),
    ("keepalives_idle", "5"),
    ("keepalives_interval", "2"),
    ("keepalives_count", "3"),
    ("tcp_user_timeout", "10000"),
];

fn with_liveness(url: &str) -> String {
    let mut url = url.to_owned();
    for (key, value) in LIVENESS {
        if !url.contains(&format!("{key}=")) {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&format!("{key}={value}"));
        }
    }
    url
}

/// A URL without its password, to be logged.
fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_lsn_is_read_as_its_two_halves() {
        assert_eq!(parse_lsn("0/0").unwrap(), 0);
        assert_eq!(parse_lsn("16/B374D848").unwrap(), 0x16_B374_D848);
        assert!(parse_lsn("16B374D848").is_err());
        assert!(parse_lsn("x/1").is_err());
    }

    /// A replica found usable is used only while that verdict is fresh: a
    /// check that hangs must not leave reads going to it.
    #[test]
    fn a_verdict_nobody_renews_lapses() {
        let replicas = Replicas::open(
            &["postgres://127.0.0.1:1/none".to_owned()],
            Duration::from_secs(5),
        )
        .unwrap();
        let replica = &replicas.members[0];
        assert_eq!(replicas.usable().count(), 0, "not usable before a check");
        *replica.found_usable_at.lock().unwrap() = Some(Instant::now());
        assert_eq!(replicas.usable().count(), 1);
        let Some(long_ago) = Instant::now().checked_sub(VERDICT_HOLDS * 2) else {
            return; // a machine up for less than that
        };
        *replica.found_usable_at.lock().unwrap() = Some(long_ago);
        assert_eq!(replicas.usable().count(), 0, "a stale verdict lapsed");
        *replica.found_usable_at.lock().unwrap() = Some(Instant::now());
        replica.set_aside();
        assert_eq!(replicas.usable().count(), 0, "set aside");
    }

    #[test]
    fn a_replica_url_gets_the_liveness_settings_it_lacks() {
        let url = with_liveness("postgres://db2/kingpost?connect_timeout=7");
        assert!(url.starts_with("postgres://db2/kingpost?connect_timeout=7&keepalives_idle=5"));
        assert!(url.ends_with("&tcp_user_timeout=10000"), "{url}");
        assert_eq!(
            url.matches("connect_timeout=").count(),
            1,
            "the operator's kept"
        );
    }

    #[test]
    fn a_logged_url_hides_its_password() {
        assert_eq!(
            shown("postgres://kingpost:secret@db2:5432/kingpost"),
            "postgres://kingpost:***@db2:5432/kingpost"
        );
        assert_eq!(shown("postgres://db2/kingpost"), "postgres://db2/kingpost");
    }
}
