//! Ratings as players read them: a game's, a player's in a pool and its
//! history, and the leaderboards.

use std::collections::HashMap;

use crate::{
    clock::{DAY, Millis},
    db::DbConnection,
    domain::cursor,
    error::ApiError,
    models::{
        account,
        game::GameRow,
        rating::{self, GameRatingRow, RatingRow},
    },
    stored::GameId,
    views::{
        GameRatings, Leaderboard, LeaderboardEntry, RatedStart, RatingHistory, RatingPoint,
        RatingView, RuleKey, SideRating, Timestamp,
    },
};

use super::glicko::{PROVISIONAL, current};

/// A leaderboard lists those who finished a rated game in its pool within
/// this time: a rating established years ago says little of the player now.
pub const LEADERBOARD_ACTIVITY: Millis = 365 * DAY;

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
        last_rated_at: Timestamp(row.rated_at),
    }
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
    let after = cursor.map(cursor::decode).transpose()?;
    let mut rows = rating::history(conn, &account.id, rules, start, after, limit + 1)?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = rows
        .last()
        .filter(|_| more)
        .map(|last| cursor::encode(last.rated_at.unwrap_or_default(), last.game_id.as_str()));
    let points = rows
        .into_iter()
        .map(|row| RatingPoint {
            game_id: row.game_id.to_string(),
            at: Timestamp(row.rated_at.unwrap_or_default()),
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
            let (rank, rest) = cursor::decode(cursor)?;
            let (bits, id) = rest.split_once(':').ok_or_else(cursor::invalid)?;
            let bits: u64 = bits.parse().map_err(|_| cursor::invalid())?;
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
        cursor::encode(ranked + entries.len() as i64, &rest)
    });
    Ok(Leaderboard {
        rules,
        start,
        entries,
        next_cursor,
    })
}
