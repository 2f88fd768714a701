//! Round-robin tournaments: what an organiser sends, and what players and
//! watchers read.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{
    ClockSpec, DaysPerMove, GameResult, PlayerView, RatingRange, RuleKey, StartSpec, Timestamp,
};
use crate::stored::text_enum;

text_enum! {
    /// Where a tournament stands.
    #[derive(ToSchema)]
    pub enum TournamentStatus ("tournament status") {
        /// Taking players until it is full or its sign-up deadline.
        Open = "open",
        /// Its games are being played.
        Started = "started",
        Finished = "finished",
        /// Fewer than three players at the deadline.
        Cancelled = "cancelled",
    }
}

/// A round robin to organise.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTournamentRequest {
    /// 1 to 80 characters.
    pub name: String,
    #[schema(value_type = RuleKey)]
    pub rules: String,
    /// The start of every game: a Chess960 or Shuffle number left out is
    /// drawn once for all, or once for each round with `start_per_round`.
    #[serde(default = "standard_start")]
    pub start: StartSpec,
    #[serde(default)]
    pub start_per_round: bool,
    /// Give this or `clock`.
    #[schema(value_type = Option<DaysPerMove>)]
    #[serde(default)]
    pub days_per_move: Option<i32>,
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    #[serde(default)]
    pub rated: bool,
    /// Each pairing played twice, once with each colour, all games at once.
    #[serde(default)]
    pub double: bool,
    /// 3 to 17 players.
    #[schema(minimum = 3, maximum = 17)]
    pub capacity: i32,
    /// Who may join: their rating in the tournament's pool.
    #[serde(default)]
    pub rating_range: Option<RatingRange>,
    /// When sign-up closes (RFC 3339): the tournament starts then with
    /// three players or more, or sooner once full.
    #[schema(format = DateTime)]
    pub signup_deadline: String,
}

fn standard_start() -> StartSpec {
    StartSpec::Standard {}
}

/// A tournament in a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentSummary {
    pub id: String,
    pub name: String,
    pub organiser: PlayerView,
    pub rules: RuleKey,
    pub variant: String,
    pub start: StartSpec,
    pub start_per_round: bool,
    /// 0 under a `clock`.
    pub days_per_move: i32,
    pub clock: Option<ClockSpec>,
    pub rated: bool,
    pub double: bool,
    pub capacity: i32,
    pub rating_range: Option<RatingRange>,
    /// Signed up (before the start) or playing.
    pub player_count: i64,
    pub status: TournamentStatus,
    pub signup_deadline: Timestamp,
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
}

/// Which tournaments to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TournamentQuery {
    pub status: Option<TournamentStatus>,
    pub rules: Option<RuleKey>,
    /// Where the page begins: `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// Tournaments per page, 1 to 100 (50 when left out).
    pub limit: Option<i64>,
}

/// A page of tournaments, the newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentList {
    pub tournaments: Vec<TournamentSummary>,
    pub next_cursor: Option<String>,
}

/// A player's line of the standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingView {
    /// 1 for the first; players level on every tie-break share a place.
    pub place: usize,
    pub player: PlayerView,
    /// The Berger number drawn at the start.
    pub seat: i32,
    pub points: f64,
    /// Baumbach: the number of wins.
    pub wins: u32,
    pub sonneborn_berger: f64,
    /// Points against the players level on points, wins and
    /// Sonneborn-Berger.
    pub direct_encounter: f64,
    pub finished: u32,
    pub unfinished: u32,
    pub withdrawn: bool,
    /// Withdrawn before finishing half of their games: their results are
    /// annulled.
    pub annulled: bool,
}

/// A game of the tournament.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentGameView {
    pub game_id: String,
    pub round: i32,
    pub board: i32,
    pub white: PlayerView,
    pub black: PlayerView,
    /// Null while under way.
    pub result: Option<GameResult>,
}

/// A tournament with its players, standings and games.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentView {
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// In the order they joined.
    pub players: Vec<PlayerView>,
    /// By place, once started.
    pub standings: Vec<StandingView>,
    /// Every game, by round and board.
    pub games: Vec<TournamentGameView>,
    /// Once finished: those in first place.
    pub winners: Vec<PlayerView>,
}
