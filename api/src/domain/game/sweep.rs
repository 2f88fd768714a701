//! The sweep: games lost on time ended, and players told their deadline
//! is near.

use serde_json::json;

use crate::{
    clock::{Millis, SECOND, rfc3339},
    db::{DbConnection, write_transaction},
    domain::events::{self},
    error::ApiError,
    models::{
        account::{self},
        game::{self, GameRow, GameStatus},
    },
    notify::Outbox,
    views::EventKind,
};

use super::{Loaded, clock::LONGEST_TURN, effective_deadline};

/// Ends on time every game whose deadline has passed; how many this call
/// ended. Safe to run on several instances at once: each end is a write
/// conditional on the game being unchanged since it was read.
pub fn sweep(conn: &mut DbConnection, outbox: &mut Outbox, now: Millis) -> Result<usize, ApiError> {
    let mut ended = 0;
    let past = |conn: &mut DbConnection, after: Option<&_>, limit| {
        game::past_deadline(conn, now, after, limit)
    };
    for_each_by_deadline(conn, past, |conn, candidate| {
        let expired = write_transaction(conn, |conn| {
            Loaded::read_for_update(conn, &candidate.id)?.expire_if_due(conn, outbox, now)
        })?;
        ended += usize::from(expired);
        Ok(())
    })?;
    warn_of_deadlines(conn, outbox, now)?;
    crate::models::event::prune(conn, now - events::RETENTION)?;
    crate::models::idempotency::prune(conn, now - crate::models::idempotency::KEPT_FOR)?;
    Ok(ended)
}

/// How many games the sweep reads at a time.
const SWEEP_PAGE: i64 = 500;

/// Runs `each` on every game that `page` finds (after a cursor, at most a
/// limit), a page at a time in order of deadline and id: games that stay
/// candidates (their player on vacation) never keep the sweep from those
/// after them.
fn for_each_by_deadline(
    conn: &mut DbConnection,
    page: impl Fn(&mut DbConnection, Option<&(i64, String)>, i64) -> diesel::QueryResult<Vec<GameRow>>,
    mut each: impl FnMut(&mut DbConnection, GameRow) -> Result<(), ApiError>,
) -> Result<(), ApiError> {
    let mut after = None;
    loop {
        let rows = page(conn, after.as_ref(), SWEEP_PAGE)?;
        let last_page = rows.len() < SWEEP_PAGE as usize;
        for row in rows {
            after = Some((row.deadline_at.unwrap_or_default(), row.id.to_string()));
            each(conn, row)?;
        }
        if last_page {
            return Ok(());
        }
    }
}

/// The part of the time for a move left when a `deadline_near` event goes
/// out: a quarter (of a turn up to [`LONGEST_TURN`]: a control's carried
/// time may make a turn longer, and then the warning comes that far ahead).
pub const WARNING_FRACTION: i64 = 4;

/// Tells each player whose deadline is near, once a turn.
fn warn_of_deadlines(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
) -> Result<(), ApiError> {
    let max_window = LONGEST_TURN / WARNING_FRACTION;
    let due = |conn: &mut DbConnection, after: Option<&_>, limit| {
        game::warnings_due(conn, now, WARNING_FRACTION, max_window, after, limit)
    };
    for_each_by_deadline(conn, due, |conn, candidate| {
        write_transaction(conn, |conn| {
            let mut game = Loaded::read_for_update(conn, &candidate.id)?;
            let mover = match &game.row.to_move_id {
                Some(id) => account::find(conn, id)?,
                None => return Ok(()),
            };
            let Some(deadline) = effective_deadline(&game.row, mover.as_ref(), now) else {
                return Ok(());
            };
            // A quarter of the turn's time: its days per move, or the bank
            // the turn began with (both from its start to its deadline,
            // before vacations moved it).
            let turn = game
                .row
                .deadline_at
                .map_or(0, |d| d - game.row.turn_started_at);
            let window = turn / WARNING_FRACTION;
            if game.row.warned_ply == Some(game.row.ply)
                || deadline - now > window
                || deadline <= now
            {
                return Ok(());
            }
            game.row.warned_ply = Some(game.row.ply);
            let data = json!({"deadline": rfc3339(deadline), "time_left_seconds": (deadline - now) / SECOND});
            game.tell(game.pos.turn(), EventKind::DeadlineNear, data);
            game.save(conn, outbox, now)?;
            Ok::<_, ApiError>(())
        })
    })
}

/// Whether the game is lost on time but not yet marked so.
pub(super) fn is_due(row: &GameRow, now: Millis) -> bool {
    row.status == GameStatus::Started && row.deadline_at.is_some_and(|deadline| deadline <= now)
}
