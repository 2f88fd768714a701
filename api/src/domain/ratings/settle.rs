//! Ratings in the database: a player seated in a pool when a rated game
//! begins, both players' ratings moved by the change that finishes it.

use serde_json::json;
use skillratings::{Outcomes, glicko2::Glicko2Rating};

use crate::{
    clock::Millis,
    db::DbConnection,
    error::{ApiError, Code},
    models::{
        game::{self as game_rows, GameResult, GameRow, GameStatus, StartKind},
        rating::{self, GameRatingRow, RatingRow},
    },
    stored::AccountId,
    views::{EventKind, RatedStart, RuleKey, Side},
};

use super::glicko::{current, established_until, rate};

/// The pool a game of this start is rated in; none for a FEN start.
pub fn rated_start(kind: StartKind) -> Option<RatedStart> {
    match kind {
        StartKind::Standard => Some(RatedStart::Standard),
        StartKind::Chess960 => Some(RatedStart::Chess960),
        StartKind::Shuffle => Some(RatedStart::Shuffle),
        StartKind::Prechess => Some(RatedStart::Prechess),
        StartKind::Fen => None,
    }
}

/// The pool of a start a rated challenge or tournament asks for, or why
/// it cannot be rated.
pub fn rated_pool(kind: StartKind) -> Result<RatedStart, ApiError> {
    rated_start(kind).ok_or_else(|| {
        ApiError::invalid(
            Code::UnratedStart,
            "a game from a FEN start cannot be rated: ask for a casual game",
        )
    })
}

/// A new player's rating row in a pool.
fn new_rating(account: &AccountId, rules: RuleKey, start: RatedStart, now: Millis) -> RatingRow {
    let fresh = Glicko2Rating::new();
    RatingRow {
        account_id: account.clone(),
        rules,
        start,
        rating: fresh.rating,
        deviation: fresh.deviation,
        volatility: fresh.volatility,
        games: 0,
        rated_at: now,
        established_until: None,
    }
}

/// An account's rating in a pool, 1500 where it has none.
pub fn rating_in(
    conn: &mut DbConnection,
    account: &AccountId,
    rules: RuleKey,
    start: RatedStart,
) -> Result<f64, ApiError> {
    Ok(rating::find(conn, account, rules, start)?.map_or_else(starting_rating, |row| row.rating))
}

/// Accounts' ratings in a pool, read at once.
#[derive(Debug)]
pub struct PoolRatings(std::collections::HashMap<AccountId, f64>);

impl PoolRatings {
    /// The account's rating: the starting one if it has not played there
    /// (or was not read).
    pub fn of(&self, account: &AccountId) -> f64 {
        self.0.get(account).copied().unwrap_or_else(starting_rating)
    }
}

/// The ratings of `accounts` in a pool, in one read.
pub fn ratings_in(
    conn: &mut DbConnection,
    accounts: &[&AccountId],
    rules: RuleKey,
    start: RatedStart,
) -> Result<PoolRatings, ApiError> {
    Ok(PoolRatings(
        rating::find_all(conn, accounts, rules, start)?
            .into_iter()
            .map(|row| (row.account_id, row.rating))
            .collect(),
    ))
}

/// The rating of a player new to a pool.
fn starting_rating() -> f64 {
    Glicko2Rating::new().rating
}

/// Records both players' ratings as a rated game begins (a new player's
/// starting one).
pub fn seat(conn: &mut DbConnection, game: &GameRow, now: Millis) -> Result<(), ApiError> {
    let start = rated_start(game.start_kind)
        .ok_or_else(|| ApiError::Internal(format!("game {}: rated from a FEN", game.id)))?;
    let mut sides = Vec::with_capacity(2);
    for (color, account) in [(Side::White, &game.white_id), (Side::Black, &game.black_id)] {
        let account = account.as_ref().ok_or_else(|| {
            ApiError::Internal(format!("game {}: rated without a player", game.id))
        })?;
        let held = rating::find(conn, account, game.rules, start)?;
        let rating = held.map_or_else(Glicko2Rating::new, |row| current(&row, now));
        sides.push(GameRatingRow {
            game_id: game.id.clone(),
            color,
            account_id: account.clone(),
            rules: game.rules,
            start,
            rating: rating.rating,
            deviation: rating.deviation,
            rating_after: None,
            deviation_after: None,
            rating_change: None,
            rated_at: None,
        });
    }
    rating::insert_sides(conn, &sides)?;
    Ok(())
}

/// Whether a rated game that has ended moves ratings: only a finished one
/// (not aborted) in which each side has moved. A game resigned, timed out
/// or agreed drawn before that is a game not played (lichess aborts it).
pub fn counts(game: &GameRow) -> bool {
    game.status == GameStatus::Finished && game.ply >= 2
}

/// Takes a rated game that does not count off the ratings: stored as
/// unrated, its seats forgotten.
pub fn unrate(conn: &mut DbConnection, game: &mut GameRow) -> Result<(), ApiError> {
    game.rated = false;
    game_rows::unrate(conn, &game.id)?;
    rating::remove_sides(conn, &game.id)?;
    Ok(())
}

/// A rating change to tell a player of.
pub type RatingEvent = (AccountId, EventKind, serde_json::Value);

/// Moves both players' ratings by the result of a rated game that has just
/// finished; called once, by the change that finished it (the game's guard
/// lets one change through), with the game's row locked. The events to
/// record.
pub fn settle(
    conn: &mut DbConnection,
    game: &GameRow,
    now: Millis,
) -> Result<Vec<RatingEvent>, ApiError> {
    let outcome = match game.result {
        Some(GameResult::WhiteWon) => Outcomes::WIN,
        Some(GameResult::BlackWon) => Outcomes::LOSS,
        Some(GameResult::Draw) => Outcomes::DRAW,
        Some(GameResult::Unknown) | None => return Ok(Vec::new()),
    };
    let sides = rating::sides_of(conn, &game.id)?;
    let [white_side, black_side] = sides.as_slice() else {
        return Err(ApiError::Internal(format!(
            "game {}: rated with {} sides",
            game.id,
            sides.len()
        )));
    };
    let (rules, start) = (white_side.rules, white_side.start);
    let ids = [&white_side.account_id, &black_side.account_id];
    // In the order of the ids, as the locks below: two transactions making
    // the same two new players' rows wait for each other in one order only.
    let mut fresh: Vec<RatingRow> = ids
        .iter()
        .map(|id| new_rating(id, rules, start, now))
        .collect();
    fresh.sort_by(|a, b| a.account_id.cmp(&b.account_id));
    rating::ensure(conn, &fresh)?;
    let held = rating::lock_all(conn, &ids, rules, start)?;
    let row_of = |id: &AccountId| {
        held.iter()
            .find(|row| row.account_id == *id)
            .cloned()
            .ok_or_else(|| ApiError::Internal(format!("game {}: no rating for {id}", game.id)))
    };
    let (white, black) = (row_of(ids[0])?, row_of(ids[1])?);
    let (white_now, black_now) = (current(&white, now), current(&black, now));
    let black_outcome = match outcome {
        Outcomes::WIN => Outcomes::LOSS,
        Outcomes::LOSS => Outcomes::WIN,
        Outcomes::DRAW => Outcomes::DRAW,
    };
    let white_after = rate(&white_now, &[(black_now, outcome)]);
    let black_after = rate(&black_now, &[(white_now, black_outcome)]);
    let mut events = Vec::with_capacity(2);
    for (side, before, after, mut row) in [
        (white_side, white_now, white_after, white),
        (black_side, black_now, black_after, black),
    ] {
        row.rating = after.rating;
        row.deviation = after.deviation;
        row.volatility = after.volatility;
        row.games += 1;
        row.rated_at = now;
        row.established_until = established_until(&after, now);
        let change = after.rating - before.rating;
        rating::save(conn, &row)?;
        rating::settle_side(conn, &game.id, side.color, &row, change)?;
        let data = json!({
            "rules": rules,
            "start": start,
            "rating": after.rating.round() as i32,
            "deviation": after.deviation.round() as i32,
            "change": change.round() as i32,
        });
        events.push((row.account_id, EventKind::RatingChanged, data));
    }
    Ok(events)
}
