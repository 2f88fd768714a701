//! Ratings, profiles and leaderboards.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{RuleKey, Timestamp};
use crate::stored::text_enum;

text_enum! {
    /// The start family of a rating pool: each rule set has one pool per
    /// family (games from a FEN are never rated).
    #[derive(ToSchema)]
    pub enum RatedStart ("rated start") {
        Standard = "standard",
        Chess960 = "chess960",
        Shuffle = "shuffle",
        Prechess = "prechess",
    }
}

/// A rating in one pool, its deviation grown with the time since the
/// account's last rated game there.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingView {
    pub rules: RuleKey,
    pub start: RatedStart,
    /// Glicko-2 rating, rounded.
    pub rating: i32,
    /// Rating deviation, rounded.
    pub deviation: i32,
    pub volatility: f64,
    /// A deviation of 110 or more: too few recent games to be sure.
    pub provisional: bool,
    /// Rated games finished in this pool.
    pub games: i32,
    /// When the last of them finished (RFC 3339, UTC).
    pub last_rated_at: Timestamp,
}

/// Wins, draws and losses in one rule set, rated and casual games alike.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RecordView {
    pub rules: RuleKey,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
}

/// A player as anyone may see them.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserProfile {
    pub username: String,
    /// A BOT account: an engine, playing through the Bot API; its games
    /// are casual.
    pub bot: bool,
    pub created_at: Timestamp,
    /// When they last acted in a game (moved, offered, resigned), to the
    /// minute: acts within a minute of the last one noted leave it.
    pub last_active_at: Option<Timestamp>,
    /// While on vacation, their clocks stand still.
    pub on_vacation: bool,
    /// Games they are playing now.
    pub games_under_way: i64,
    /// Their ratings, one per pool they have played a rated game in.
    pub ratings: Vec<RatingView>,
    /// Their finished games' results per rule set.
    pub records: Vec<RecordView>,
}

/// Which pool: a rule set and a start family.
#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PoolQuery {
    pub rules: RuleKey,
    /// The start family; `standard` when left out.
    pub start: Option<RatedStart>,
    /// Where the page begins: `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// Entries per page, 1 to 100 (50 when left out).
    pub limit: Option<i64>,
}

impl PoolQuery {
    /// The pool asked for.
    pub fn pool(&self) -> (RuleKey, RatedStart) {
        (self.rules, self.start.unwrap_or(RatedStart::Standard))
    }
}

/// One rated game's mark in a player's history.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingPoint {
    pub game_id: String,
    /// When the game finished and the rating changed (RFC 3339, UTC).
    pub at: Timestamp,
    /// The rating after the game, rounded.
    pub rating: i32,
    pub deviation: i32,
    /// How the game changed it, rounded.
    pub change: i32,
}

/// A player's rating history in one pool, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingHistory {
    pub username: String,
    pub rules: RuleKey,
    pub start: RatedStart,
    pub points: Vec<RatingPoint>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// A place on a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1 for the highest rating.
    pub rank: i64,
    pub username: String,
    pub rating: i32,
    pub deviation: i32,
    pub games: i32,
}

/// The established ratings of one pool, highest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    pub rules: RuleKey,
    pub start: RatedStart,
    pub entries: Vec<LeaderboardEntry>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// One side's rating in a rated game: as the game began, and what it
/// changed once finished.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SideRating {
    /// The rating when the game began, rounded.
    pub rating: i32,
    pub deviation: i32,
    pub provisional: bool,
    /// The change the result made, rounded; null until the game finishes
    /// (and for an aborted game, which is unrated).
    pub change: Option<i32>,
}

/// Both sides' ratings in a rated game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameRatings {
    pub start: RatedStart,
    pub white: SideRating,
    pub black: SideRating,
}
