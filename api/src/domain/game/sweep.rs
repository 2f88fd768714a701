//! The sweep: games lost on time ended, and players told their deadline
//! is near.

use serde_json::json;

use crate::{
    clock::{DAY, Millis, SECOND, rfc3339},
    db::{DbConnection, write_transaction},
    domain::events::{self},
    error::ApiError,
    models::{
        account::{self},
        event,
        game::{self, GameRow, GameStatus},
        idempotency, mail, push,
    },
    notify::Outbox,
    views::EventKind,
};

use super::{Loaded, effective_deadline};

/// How many games a step of the server's sweep reads and changes: each
/// step is its own turn at the database's writers (SQLite has one writer at
/// a time), so a move arriving meanwhile waits for one step (tens of
/// milliseconds), not for the thousands of games due after a long stop.
pub const SWEEP_STEP: i64 = 50;

/// How long a mail or a push is kept once sent or given up: the hourly
/// bounds on mail look back an hour, and a day tells an operator what went.
const OUTBOX_KEPT_FOR: Millis = DAY;

/// How many old rows of each kind (events, deliveries, idempotency keys,
/// mails and pushes done) a step prunes for each game it would read: a
/// backlog after a long stop is pruned over many steps too.
const PRUNED_PER_GAME: i64 = 20;

/// One sweep, run a step at a time: games whose deadline has passed are
/// ended on time, then players whose deadline is near are told, then old
/// events, deliveries, idempotency keys, mails and pushes are pruned. Safe to run on
/// several instances at once: each end is a write conditional on the game
/// being unchanged since it was read.
#[derive(Debug)]
pub struct Sweep {
    now: Millis,
    step: i64,
    phase: Phase,
    /// Where the phase goes on: the deadline (or warning time) and id of the
    /// last game seen, so that games that stay candidates (their player on
    /// vacation) never keep the sweep from those after them.
    after: Option<(i64, String)>,
    ended: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Expire,
    Warn,
    Prune,
    Done,
}

impl Sweep {
    /// A sweep as of `now`, reading and changing at most `step` games a step.
    pub fn new(now: Millis, step: i64) -> Sweep {
        Sweep {
            now,
            step,
            phase: Phase::Expire,
            after: None,
            ended: 0,
        }
    }

    /// How many games the sweep has ended on time so far.
    pub fn ended(&self) -> usize {
        self.ended
    }

    /// Runs the next step; whether any remain.
    pub fn step(&mut self, conn: &mut DbConnection, outbox: &mut Outbox) -> Result<bool, ApiError> {
        let now = self.now;
        match self.phase {
            Phase::Expire => {
                let rows = game::past_deadline(conn, now, self.after.as_ref(), self.step)?;
                for row in &rows {
                    let expired = write_transaction(conn, |conn| {
                        Loaded::read_for_update(conn, &row.id)?.expire_if_due(conn, outbox, now)
                    })?;
                    self.ended += usize::from(expired);
                }
                self.page_done(
                    &rows,
                    |row| row.deadline_at.unwrap_or_default(),
                    Phase::Warn,
                );
            }
            Phase::Warn => {
                let rows = game::warnings_due(conn, now, self.after.as_ref(), self.step)?;
                for row in &rows {
                    write_transaction(conn, |conn| warn_if_due(conn, outbox, now, row))?;
                }
                self.page_done(&rows, warning_time, Phase::Prune);
            }
            Phase::Prune => {
                // Rows are cheaper to delete than games to end: more a step.
                let limit = self.step * PRUNED_PER_GAME;
                let pruned = [
                    event::prune_deliveries(conn, now - events::RETENTION, limit)?,
                    event::prune(conn, now - events::RETENTION, limit)?,
                    idempotency::prune(conn, now - idempotency::KEPT_FOR, limit)?,
                    mail::prune(conn, now - OUTBOX_KEPT_FOR, limit)?,
                    push::prune(conn, now - OUTBOX_KEPT_FOR, limit)?,
                ];
                if pruned.iter().all(|&n| (n as i64) < limit) {
                    self.phase = Phase::Done;
                }
            }
            Phase::Done => {}
        }
        Ok(self.phase != Phase::Done)
    }

    /// Moves the cursor past a page read in order of `key` and id; a page
    /// short of a step was the phase's last, and `next` begins.
    fn page_done(&mut self, rows: &[GameRow], key: impl Fn(&GameRow) -> i64, next: Phase) {
        match rows.last() {
            Some(last) if rows.len() as i64 == self.step => {
                self.after = Some((key(last), last.id.to_string()));
            }
            _ => {
                self.after = None;
                self.phase = next;
            }
        }
    }
}

/// Runs a whole sweep on one connection, in one turn: for tools and
/// benchmarks; the server runs [`Sweep`] a step at a time. How many games
/// it ended.
pub fn sweep(conn: &mut DbConnection, outbox: &mut Outbox, now: Millis) -> Result<usize, ApiError> {
    let mut sweep = Sweep::new(now, SWEEP_STEP);
    while sweep.step(conn, outbox)? {}
    Ok(sweep.ended())
}

/// How long before a deadline its `deadline_near` event goes out: a day,
/// or a quarter of the turn's time (its days per move, or the bank the turn
/// began with, however long a control's carried time makes it) when that
/// is shorter.
pub fn warning_window(turn: Millis) -> Millis {
    (turn / 4).min(DAY)
}

/// When the warning of a game's turn falls due, before vacations, as
/// `game::warnings_due` orders the games.
fn warning_time(row: &GameRow) -> i64 {
    let deadline = row.deadline_at.unwrap_or_default();
    deadline - warning_window(deadline - row.turn_started_at)
}

/// Tells the player to move in `candidate` that their deadline is near,
/// once a turn, if it still is.
fn warn_if_due(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    candidate: &GameRow,
) -> Result<(), ApiError> {
    let mut game = Loaded::read_for_update(conn, &candidate.id)?;
    let mover = match &game.row.to_move_id {
        Some(id) => account::find(conn, id)?,
        None => return Ok(()),
    };
    let Some(deadline) = effective_deadline(&game.row, mover.as_ref(), now) else {
        return Ok(());
    };
    // The turn from its start to its deadline, before vacations moved it.
    let turn = game
        .row
        .deadline_at
        .map_or(0, |d| d - game.row.turn_started_at);
    let window = warning_window(turn);
    if game.row.warned_ply == Some(game.row.ply) || deadline - now > window || deadline <= now {
        return Ok(());
    }
    game.row.warned_ply = Some(game.row.ply);
    let data =
        json!({"deadline": rfc3339(deadline), "time_left_seconds": (deadline - now) / SECOND});
    game.tell(game.pos.turn(), EventKind::DeadlineNear, data);
    game.save(conn, outbox, now)?;
    Ok(())
}

/// Whether the game is lost on time but not yet marked so.
pub(super) fn is_due(row: &GameRow, now: Millis) -> bool {
    row.status == GameStatus::Started && row.deadline_at.is_some_and(|deadline| deadline <= now)
}
