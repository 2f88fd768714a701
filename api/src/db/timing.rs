//! Each statement's time in the log: at `debug` on the `kingpost::sql`
//! target, inside the span of the request or job that ran it (the blocking
//! threads run in their caller's span: [`in_callers_span`]), so that a slow
//! move can be explained from the log. The SQL is logged without its
//! bound values, which hold secrets' digests and players' texts.

use std::time::Instant;

use diesel::connection::{Instrumentation, InstrumentationEvent};

/// The target statement timings are logged on: `RUST_LOG=kingpost::sql=debug`.
pub const TARGET: &str = "kingpost::sql";

/// Times the statements of one connection.
#[derive(Debug, Default)]
pub struct StatementTimer {
    started: Option<Instant>,
}

impl Instrumentation for StatementTimer {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        match event {
            InstrumentationEvent::StartQuery { .. } => {
                // Timed only when someone reads the figure.
                self.started =
                    tracing::enabled!(target: TARGET, tracing::Level::DEBUG).then(Instant::now);
            }
            InstrumentationEvent::FinishQuery { query, error, .. } => {
                if let Some(started) = self.started.take() {
                    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                    let text = query.to_string();
                    let sql = text
                        .split_once(" -- binds: ")
                        .map_or(&*text, |(sql, _)| sql);
                    tracing::debug!(target: TARGET, micros, failed = error.is_some(), sql, "statement");
                }
            }
            _ => {}
        }
    }
}

/// `f`, made to run (on a blocking thread) in the span current where it
/// was made, so that what it logs is the request's or the job's.
pub fn in_callers_span<T>(f: impl FnOnce() -> T) -> impl FnOnce() -> T {
    let span = tracing::Span::current();
    move || span.in_scope(f)
}

/// Microseconds since `since`, for the log.
pub fn micros_since(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use diesel::{Connection, RunQueryDsl, SqliteConnection, sql_types::Text};

    use super::*;

    /// What the log received.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_statement_is_logged_with_its_time_and_without_its_values() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter("kingpost::sql=debug,kingpost_api=info")
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let mut conn = SqliteConnection::establish(":memory:").unwrap();
            conn.set_instrumentation(StatementTimer::default());
            let span = tracing::info_span!("request", game = "g1");
            let _entered = span.enter();
            diesel::sql_query("SELECT ? AS secret")
                .bind::<Text, _>("hunter2")
                .execute(&mut conn)
                .unwrap();
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line = log
            .lines()
            .find(|line| line.contains("SELECT ? AS secret"))
            .unwrap_or_else(|| panic!("the statement is logged: {log}"));
        assert!(line.contains("micros="), "{line}");
        assert!(line.contains("request{game=\"g1\"}"), "{line}");
        assert!(
            !log.contains("hunter2"),
            "a bound value reached the log: {log}"
        );
    }
}
