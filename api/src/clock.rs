//! Time as the service sees it: injectable, so tests can move it.

use std::{
    fmt,
    sync::atomic::{AtomicI64, Ordering},
    time::{SystemTime, UNIX_EPOCH},
};

/// Milliseconds since the Unix epoch, UTC.
pub type Millis = i64;

pub const SECOND: Millis = 1000;
pub const MINUTE: Millis = 60 * SECOND;
pub const HOUR: Millis = 60 * MINUTE;
pub const DAY: Millis = 24 * HOUR;

/// A source of the current time.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> Millis;
}

/// The system's clock.
#[derive(Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Millis {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("the clock is after 1970");
        since_epoch.as_millis() as Millis
    }
}

/// A clock that moves only when told: for tests.
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start: Millis) -> ManualClock {
        ManualClock(AtomicI64::new(start))
    }

    pub fn advance(&self, by: Millis) {
        self.0.fetch_add(by, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Millis {
        self.0.load(Ordering::SeqCst)
    }
}

/// The UTC day of `at` as PGN writes dates: `2026.12.01`.
pub fn pgn_date(at: Millis) -> String {
    rfc3339(at)[..10].replace('-', ".")
}

/// The time an RFC 3339 text names, to the millisecond.
pub fn parse_rfc3339(text: &str) -> Option<Millis> {
    let time =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    i64::try_from(time.unix_timestamp_nanos() / 1_000_000).ok()
}

/// The wait before the next attempt of a delivery (a webhook's, a mail's,
/// a push's) after `attempts` failed ones: ten seconds, doubling, at most
/// `cap`.
pub fn backoff(attempts: i32, cap: Millis) -> Millis {
    ((10 * SECOND) << (attempts - 1).clamp(0, 20)).min(cap)
}

/// RFC 3339 UTC with millisecond precision: `2026-11-30T12:00:00.000Z`.
pub fn rfc3339(at: Millis) -> String {
    let time = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(at) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time.format(&format).expect("a UTC time formats")
}
