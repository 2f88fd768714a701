//! What a move asks of the database beyond its rows: no statement parsed
//! and planned again once a connection has run it, no read of conditional
//! lines where nobody holds any.

use crate::support::TestApp;
use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
    time::Duration,
};

use diesel::connection::{Connection, Instrumentation, InstrumentationEvent};
use serde_json::json;

use crate::{on_both_databases, support::*};

on_both_databases!(a_move_prepares_no_statement_anew);

/// What a connection ran: each statement's text, and those it kept prepared.
#[derive(Default)]
struct Seen {
    started: Vec<String>,
    kept: HashSet<String>,
}

struct Recorder(Arc<Mutex<Seen>>);

impl Instrumentation for Recorder {
    fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
        let mut seen = self.0.lock().unwrap();
        match event {
            InstrumentationEvent::StartQuery { query, .. } => {
                let shown = query.to_string();
                let sql = shown.split(" -- binds: ").next().unwrap_or_default();
                seen.started.push(sql.to_owned());
            }
            InstrumentationEvent::CacheQuery { sql, .. } => {
                seen.kept.insert(sql.to_owned());
            }
            _ => {}
        }
    }
}

/// Transaction control goes as plain text, never prepared.
fn is_transaction_control(sql: &str) -> bool {
    ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"]
        .iter()
        .any(|word| sql.trim_start().to_ascii_uppercase().starts_with(word))
}

// A statement prepared anew is parsed and planned again by Postgres and
// compiled again by SQLite on every move. Diesel keeps no UPDATE, no insert
// of a row with optional values and no raw SQL; the move's are kept.
async fn a_move_prepares_no_statement_anew(db: Db) {
    // One connection, so that every request runs on the one watched.
    let (app, pool) = TestApp::on(&db).small_pool(1, Duration::from_secs(5));
    let state = app.state();
    let seen = Arc::new(Mutex::new(Seen::default()));
    pool.get()
        .unwrap()
        .set_instrumentation(Recorder(seen.clone()));
    let app = init(state).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let moves = format!("{}/moves", path_of(&game));
    let line = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"];
    for (ply, san) in line.iter().enumerate() {
        if ply == 2 {
            // Each side has moved once: what follows runs what ran before.
            seen.lock().unwrap().started.clear();
        }
        let mover = if ply % 2 == 0 { &alice } else { &bob };
        post(&moves)
            .token(mover)
            .json(json!({"move": san, "ply": ply}))
            .send(&app)
            .await
            .assert_status(200);
    }
    let seen = seen.lock().unwrap();
    let prepared: Vec<&String> = seen
        .started
        .iter()
        .filter(|sql| !is_transaction_control(sql))
        .collect();
    assert!(prepared.len() >= 6 * 5, "{prepared:#?}");
    let anew: HashSet<&&String> = prepared
        .iter()
        .filter(|sql| !seen.kept.contains(sql.as_str()))
        .collect();
    assert!(anew.is_empty(), "prepared anew on each move: {anew:#?}");
    // Nobody stored lines in this game: the game's row says so.
    let lines_read: Vec<&&String> = prepared
        .iter()
        .filter(|sql| sql.replace('`', "\"").contains("FROM \"conditionals\""))
        .collect();
    assert!(lines_read.is_empty(), "{lines_read:#?}");
}
