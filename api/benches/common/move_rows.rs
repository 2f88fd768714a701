//! The database's part of a move, done directly: the baseline a move
//! request is measured against.

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use kingpost_api::{
    db::{DbConnection, write_transaction},
    models::{
        event::{self, NewEvent},
        game::{self, IndexChange},
        position_index::{NO_MOVE, PositionRow},
        push,
    },
    server::open_database,
    views::EventKind,
};

/// Move-shaped transactions per second done directly, with the server's own
/// statements and connection set-up, on the games of the run just ended:
/// each reads a game's row, advances it a ply (a packed move more), moves
/// the game in the position index and inserts an event row (the rows and
/// indexes a move writes) and, `with_push`, the
/// event's pushes to the opponent's subscriptions (a move's rows with every
/// player's notifications on: past ten mails an hour a move writes no more),
/// from `threads` threads, each on its own game. No HTTP, token, rules,
/// conditional moves or answer: what is left of a move when only the
/// database's part is done.
pub fn baseline(url: &str, threads: usize, seconds: u64, with_push: bool) -> f64 {
    let pool = open_database(url).unwrap();
    // Every game under way has a deadline before the end of time.
    let games =
        game::past_deadline(&mut pool.get().unwrap(), i64::MAX, None, threads as i64).unwrap();
    assert_eq!(games.len(), threads, "one game under way per client");
    let writer = std::sync::Mutex::new(()); // SQLite's writers take turns, as in the server
    let commits = AtomicUsize::new(0);
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    std::thread::scope(|scope| {
        for found in &games {
            let (pool, writer, commits) = (&pool, &writer, &commits);
            scope.spawn(move || {
                let mut conn = pool.get().unwrap();
                let is_sqlite = matches!(**conn, DbConnection::Sqlite(_));
                while Instant::now() < until {
                    let _turn = is_sqlite.then(|| writer.lock().unwrap());
                    write_transaction(&mut conn, |conn| {
                        let mut row = game::find(conn, &found.id)?.expect("the game");
                        let (read_ply, read_updated_at) = (row.ply, row.updated_at);
                        row.ply += 1;
                        row.updated_at += 1;
                        row.turn_started_at = row.updated_at;
                        row.deadline_at = row.deadline_at.map(|d| d + 1);
                        row.to_move_id = if row.to_move_id == row.white_id {
                            row.black_id.clone()
                        } else {
                            row.white_id.clone()
                        };
                        row.moves.push(0);
                        let (left, reached) = (i64::from(read_ply), i64::from(row.ply));
                        let position = |position_key, next, ply| PositionRow {
                            position_key,
                            game_id: row.id.clone(),
                            next,
                            ply,
                        };
                        let moved = IndexChange {
                            left,
                            rows: vec![
                                position(left, 0, read_ply),
                                position(reached, NO_MOVE, row.ply),
                            ],
                        };
                        let (ply, at) = (read_ply, read_updated_at);
                        assert!(game::advance_playing(conn, &row, ply, at, Some(&moved))?);
                        let account = row.to_move_id.as_ref().expect("a game under way");
                        let event = NewEvent {
                            account_id: account,
                            kind: EventKind::OpponentMoved,
                            game_id: Some(&row.id),
                            data: r#"{"ply":1,"uci":"e2e4","san":"e4"}"#,
                            created_at: row.updated_at,
                        };
                        let id = event::insert(conn, &event)?;
                        if with_push {
                            push::queue(conn, account, id, row.updated_at)?;
                        }
                        Ok::<_, diesel::result::Error>(())
                    })
                    .unwrap();
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    commits.into_inner() as f64 / start.elapsed().as_secs_f64()
}
