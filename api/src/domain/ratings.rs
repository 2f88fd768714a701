//! Glicko-2 ratings, one pool per rule set and start family: seated when a
//! rated game begins, moved once when it finishes, in the transaction that
//! finishes it. docs/ratings.md says why the constants are what they are.

use std::collections::HashMap;

use serde_json::json;
use skillratings::{
    Outcomes,
    glicko2::{Glicko2Config, Glicko2Rating, decay_deviation, glicko2_rating_period},
};

use crate::{
    clock::{DAY, Millis, rfc3339},
    db::DbConnection,
    domain::game::listing::{decode_cursor, encode_cursor},
    error::{ApiError, Code},
    models::{
        account,
        game::{self as game_rows, GameResult, GameRow, GameStatus, StartKind},
        rating::{self, GameRatingRow, RatingRow},
    },
    stored::{AccountId, GameId},
    views::{
        EventKind, GameRatings, Leaderboard, LeaderboardEntry, RatedStart, RatingHistory,
        RatingPoint, RatingView, RuleKey, Side, SideRating,
    },
};

/// The rating period: a deviation grows by one period's step for every
/// whole period without a rated game in the pool. A month, since a
/// correspondence player finishes a few games in one.
pub const PERIOD: Millis = 30 * DAY;

/// A deviation at or above this is provisional: shown with a mark, kept
/// off the leaderboards (lichess's threshold).
pub const PROVISIONAL: f64 = 110.0;

/// A leaderboard lists those who finished a rated game in its pool within
/// this time: a rating established years ago says little of the player now.
pub const LEADERBOARD_ACTIVITY: Millis = 365 * DAY;

/// Glickman's suggested constants: tau 0.5, convergence 0.000001.
const CONFIG: Glicko2Config = Glicko2Config::new();

/// Glicko-2's scale factor between the rating scale and its own.
const SCALE: f64 = 173.7178;

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

/// A player's rating after a rating period of `results` (each an
/// opponent's rating and the player's outcome against them). Each finished
/// game is a period of its own: correspondence games end one by one, and a
/// rating waiting for a month's batch would say little.
pub fn rate(player: &Glicko2Rating, results: &[(Glicko2Rating, Outcomes)]) -> Glicko2Rating {
    glicko2_rating_period(player, results, &CONFIG)
}

fn glicko(row: &RatingRow) -> Glicko2Rating {
    Glicko2Rating {
        rating: row.rating,
        deviation: row.deviation,
        volatility: row.volatility,
    }
}

/// A rating as of `now`: its deviation grown for each whole period since
/// its last rated game (up to the starting 350).
pub fn current(row: &RatingRow, now: Millis) -> Glicko2Rating {
    let mut rating = glicko(row);
    let periods = (now - row.rated_at).max(0) / PERIOD;
    for _ in 0..periods {
        if rating.deviation >= Glicko2Rating::new().deviation {
            break;
        }
        rating = decay_deviation(&rating);
    }
    rating
}

/// Until when a rating left at `rated_at` stays established: after `n`
/// whole periods its deviation is `sqrt(phi^2 + n sigma^2)` (on Glicko-2's
/// scale), so it turns provisional at the first `n` where that reaches the
/// threshold. `None` when it is provisional already.
pub fn established_until(rating: &Glicko2Rating, rated_at: Millis) -> Option<Millis> {
    if rating.deviation >= PROVISIONAL {
        return None;
    }
    let phi = rating.deviation / SCALE;
    let threshold = PROVISIONAL / SCALE;
    let sigma = rating.volatility.max(f64::MIN_POSITIVE);
    // At least one period; at most a thousand years of them.
    let periods = ((threshold * threshold - phi * phi) / (sigma * sigma))
        .ceil()
        .clamp(1.0, 12_000.0) as i64;
    Some(rated_at + periods * PERIOD)
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
    Ok(rating::find(conn, account, rules, start)?
        .map_or(Glicko2Rating::new().rating, |row| row.rating))
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

/// Both sides of a rated game as its view and PGN show them.
fn game_ratings(white: &GameRatingRow, black: &GameRatingRow) -> GameRatings {
    let side = |row: &GameRatingRow| SideRating {
        rating: row.rating.round() as i32,
        deviation: row.deviation.round() as i32,
        provisional: row.deviation >= PROVISIONAL,
        change: row.rating_change.map(|change| change.round() as i32),
    };
    GameRatings {
        start: white.start,
        white: side(white),
        black: side(black),
    }
}

/// A rated game's ratings for its view.
pub fn of_game(conn: &mut DbConnection, game: &GameId) -> Result<Option<GameRatings>, ApiError> {
    Ok(match rating::sides_of(conn, game)?.as_slice() {
        [white, black] => Some(game_ratings(white, black)),
        _ => None,
    })
}

/// The ratings of those of `rows` that are rated, by game, read with one
/// query.
pub fn of_games(
    conn: &mut DbConnection,
    rows: &[&GameRow],
) -> Result<HashMap<GameId, GameRatings>, ApiError> {
    let ids: Vec<&GameId> = rows.iter().filter(|r| r.rated).map(|r| &r.id).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let sides = rating::sides_of_games(conn, &ids)?;
    Ok(sides
        .chunk_by(|a, b| a.game_id == b.game_id)
        .filter_map(|pair| match pair {
            [white, black] => Some((white.game_id.clone(), game_ratings(white, black))),
            _ => None,
        })
        .collect())
}

/// A rating as a profile shows it, as of `now`.
pub fn view(row: &RatingRow, now: Millis) -> RatingView {
    let rating = current(row, now);
    RatingView {
        rules: row.rules,
        start: row.start,
        rating: rating.rating.round() as i32,
        deviation: rating.deviation.round() as i32,
        volatility: rating.volatility,
        provisional: rating.deviation >= PROVISIONAL,
        games: row.games,
        last_rated_at: rfc3339(row.rated_at),
    }
}

/// A pool named by a query: a rule set's key and a start family.
pub fn pool(rules: &str, start: Option<&str>) -> Result<(RuleKey, RatedStart), ApiError> {
    let rules: RuleKey = rules
        .parse()
        .map_err(|e: String| ApiError::invalid(Code::UnknownRules, e))?;
    let start = match start {
        None => RatedStart::Standard,
        Some(text) => text
            .parse()
            .map_err(|e: String| ApiError::invalid(Code::InvalidQuery, e))?,
    };
    Ok((rules, start))
}

/// A page of a player's rating history in a pool, oldest first.
pub fn history(
    conn: &mut DbConnection,
    username: &str,
    (rules, start): (RuleKey, RatedStart),
    cursor: Option<&str>,
    limit: i64,
) -> Result<RatingHistory, ApiError> {
    let account = account::find_by_username(conn, username)?
        .ok_or_else(|| ApiError::NotFound(format!("account `{username}`")))?;
    let after = cursor.map(decode_cursor).transpose()?;
    let mut rows = rating::history(conn, &account.id, rules, start, after, limit + 1)?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = rows
        .last()
        .filter(|_| more)
        .map(|last| encode_cursor(last.rated_at.unwrap_or_default(), last.game_id.as_str()));
    let points = rows
        .into_iter()
        .map(|row| RatingPoint {
            game_id: row.game_id.to_string(),
            at: rfc3339(row.rated_at.unwrap_or_default()),
            rating: row.rating_after.unwrap_or(row.rating).round() as i32,
            deviation: row.deviation_after.unwrap_or(row.deviation).round() as i32,
            change: row.rating_change.unwrap_or_default().round() as i32,
        })
        .collect();
    Ok(RatingHistory {
        username: account.username,
        rules,
        start,
        points,
        next_cursor,
    })
}

/// A page of a pool's leaderboard: ratings established now of players
/// active in the pool within [`LEADERBOARD_ACTIVITY`], highest first. The cursor carries the rank reached, the rating (its bits, to
/// compare exactly) and the account.
pub fn leaderboard(
    conn: &mut DbConnection,
    (rules, start): (RuleKey, RatedStart),
    cursor: Option<&str>,
    limit: i64,
    now: Millis,
) -> Result<Leaderboard, ApiError> {
    let (ranked, after) = match cursor {
        None => (0, None),
        Some(cursor) => {
            let (rank, rest) = decode_cursor(cursor)?;
            let bad =
                || ApiError::invalid(Code::InvalidCursor, "the cursor is not one this API gave");
            let (bits, id) = rest.split_once(':').ok_or_else(bad)?;
            let bits: u64 = bits.parse().map_err(|_| bad())?;
            (rank, Some((f64::from_bits(bits), id.to_owned())))
        }
    };
    let active_since = now - LEADERBOARD_ACTIVITY;
    let mut rows = rating::leaders(conn, rules, start, now, active_since, after, limit + 1)?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let entries: Vec<LeaderboardEntry> = rows
        .iter()
        .zip(ranked + 1..)
        .map(|((row, username), rank)| {
            let rating = current(row, now);
            LeaderboardEntry {
                rank,
                username: username.clone(),
                rating: rating.rating.round() as i32,
                deviation: rating.deviation.round() as i32,
                games: row.games,
            }
        })
        .collect();
    let next_cursor = rows.last().filter(|_| more).map(|(row, _)| {
        let rest = format!("{}:{}", row.rating.to_bits(), row.account_id);
        encode_cursor(ranked + entries.len() as i64, &rest)
    });
    Ok(Leaderboard {
        rules,
        start,
        entries,
        next_cursor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64, volatility: f64) -> Glicko2Rating {
        Glicko2Rating {
            rating,
            deviation,
            volatility,
        }
    }

    // Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf):
    // a 1500 player (RD 200, volatility 0.06), tau 0.5, beats a 1400 (RD 30)
    // and loses to a 1550 (RD 100) and a 1700 (RD 300) in one period.
    #[test]
    fn glickmans_worked_example() {
        let after = rate(
            &rating(1500.0, 200.0, 0.06),
            &[
                (rating(1400.0, 30.0, 0.06), Outcomes::WIN),
                (rating(1550.0, 100.0, 0.06), Outcomes::LOSS),
                (rating(1700.0, 300.0, 0.06), Outcomes::LOSS),
            ],
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    // A new player meeting a new player: the paper's formulas give both
    // the same step, one up and one down, and a smaller deviation.
    #[test]
    fn one_game_moves_both_sides_alike() {
        let fresh = Glicko2Rating::new();
        let winner = rate(&fresh, &[(fresh, Outcomes::WIN)]);
        let loser = rate(&fresh, &[(fresh, Outcomes::LOSS)]);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        assert!((winner.rating - 1500.0 - (1500.0 - loser.rating)).abs() < 1e-9);
        assert!(winner.deviation < 350.0);
    }

    fn row_of(rating: Glicko2Rating, rated_at: Millis) -> RatingRow {
        RatingRow {
            account_id: "someone".into(),
            rules: kingpost_core::Rules::Standard.into(),
            start: RatedStart::Standard,
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
            games: 10,
            rated_at,
            established_until: established_until(&rating, rated_at),
        }
    }

    // The deviation grows one step per whole period of inactivity, as
    // `decay_deviation` takes it, and not within a period.
    #[test]
    fn deviation_grows_per_whole_period() {
        let row = row_of(rating(1700.0, 60.0, 0.06), 0);
        assert_eq!(current(&row, PERIOD - 1).deviation, 60.0);
        let once = decay_deviation(&rating(1700.0, 60.0, 0.06));
        assert_eq!(current(&row, PERIOD).deviation, once.deviation);
        assert_eq!(
            current(&row, 3 * PERIOD).deviation,
            decay_deviation(&decay_deviation(&once)).deviation
        );
        assert_eq!(current(&row, 100_000 * PERIOD).deviation, 350.0);
    }

    // `established_until` is exactly the first moment `current` shows a
    // provisional deviation, for ratings near and far from the threshold.
    #[test]
    fn established_until_agrees_with_the_growing_deviation() {
        for (deviation, volatility) in [(60.0, 0.06), (109.9, 0.06), (80.0, 0.09), (50.0, 0.03)] {
            let row = row_of(rating(1600.0, deviation, volatility), 1_000);
            let until = row.established_until.expect("established");
            assert!(current(&row, until - 1).deviation < PROVISIONAL, "{row:?}");
            assert!(current(&row, until).deviation >= PROVISIONAL, "{row:?}");
        }
        assert_eq!(established_until(&rating(1600.0, 110.0, 0.06), 0), None);
    }
}
