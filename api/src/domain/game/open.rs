//! A played game begun: what a challenge accepted or a tournament's table
//! decides, stored with its clock and its players' ratings, and told to
//! both players.

use kingpost_core::Rules;
use serde_json::{Value, json};

use crate::{
    clock::Millis,
    credentials::new_id,
    db::DbConnection,
    domain::{events, ratings},
    error::ApiError,
    models::game::{self, GameRow},
    notify::Outbox,
    stored::AccountId,
    views::{ClockSpec, EventKind, StartSpec},
};

use super::{Players, clock, new_game};

/// How a played game is set up.
#[derive(Debug)]
pub struct Setup<'a> {
    pub rules: Rules,
    /// Resolved: numbers drawn.
    pub start: &'a StartSpec,
    pub players: Players,
    pub days_per_move: i32,
    pub clock: Option<&'a ClockSpec>,
    pub rated: bool,
    /// Whether a player's vacation stops the game's clock.
    pub vacation_allowed: bool,
}

/// Creates and stores a game under `setup`: its clock started, its
/// players' ratings seated if rated.
pub fn open(conn: &mut DbConnection, now: Millis, setup: Setup<'_>) -> Result<GameRow, ApiError> {
    let mut row = new_game(
        new_id().into(),
        setup.rules,
        setup.start,
        setup.players,
        setup.days_per_move,
        now,
    )?;
    row.rated = setup.rated;
    row.vacation_allowed = setup.vacation_allowed;
    if let Some(spec) = setup.clock {
        clock::start(&mut row, spec, now);
    }
    game::insert(conn, &row)?;
    if row.rated {
        ratings::seat(conn, &row, now)?;
    }
    Ok(row)
}

/// Tells `players` (in this order) that `row` started: a `game_started`
/// event each, whose data `told` adds to.
pub fn tell_started(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &GameRow,
    players: [&AccountId; 2],
    told: Value,
) -> Result<(), ApiError> {
    let mut data = json!({"white": row.white_name, "black": row.black_name, "rules": row.rules});
    if let (Some(data), Value::Object(more)) = (data.as_object_mut(), told) {
        data.extend(more);
    }
    for player in players {
        events::record(
            conn,
            outbox,
            now,
            player,
            EventKind::GameStarted,
            Some(&row.id),
            data.clone(),
        )?;
    }
    Ok(())
}
