//! Teams and their matches: what a captain sends, and what members and
//! watchers read.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{PlayerView, Timestamp, TournamentSummary};

/// A team to make: its maker is its first captain.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTeamRequest {
    /// 2 to 40 characters, unique whatever their case.
    pub name: String,
    /// Up to 1,000 characters.
    #[serde(default)]
    pub description: String,
    /// Whether anyone may join (true when left out), or only those a
    /// captain invited.
    #[serde(default = "open")]
    pub open: bool,
}

fn open() -> bool {
    true
}

/// A member named by a captain: to invite, or to make a captain.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamMemberRequest {
    pub username: String,
}

/// A team in a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub open: bool,
    pub member_count: i64,
    pub created_at: Timestamp,
}

/// A member of a team.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamMemberView {
    pub player: PlayerView,
    pub captain: bool,
    pub joined_at: Timestamp,
}

/// A team with its members and its matches.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamView {
    #[serde(flatten)]
    pub summary: TeamSummary,
    /// Captains first, then in the order they joined.
    pub members: Vec<TeamMemberView>,
    /// Its team matches, the newest first.
    pub matches: Vec<TournamentSummary>,
}

/// Which teams to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TeamQuery {
    /// Only the teams this player belongs to.
    pub member: Option<String>,
    /// Where the page begins: `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// Teams per page, 1 to 100 (50 when left out).
    pub limit: Option<i64>,
}

/// A page of teams, the newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamList {
    pub teams: Vec<TeamSummary>,
    pub next_cursor: Option<String>,
}

/// The two teams of a match to organise, by id: the caller captains the
/// home team.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchTeams {
    pub home: String,
    pub away: String,
}

/// A team as a match names it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TeamRef {
    pub id: String,
    pub name: String,
}

/// A side of a team match.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamSideView {
    pub team: TeamRef,
    /// Points from the games finished.
    pub points: f64,
    /// Signed up, in board order: the captain's order, then by rating in
    /// the match's pool (once started: those playing, by board).
    pub players: Vec<PlayerView>,
}

/// A board of a team match: its two players, who play two games at once,
/// one with each colour (`round` 1 of the board has the home player White,
/// `round` 2 the away player).
#[derive(Debug, Serialize, ToSchema)]
pub struct BoardView {
    pub board: i32,
    pub home: PlayerView,
    pub away: PlayerView,
    pub home_points: f64,
    pub away_points: f64,
}

/// A team match's teams, boards and score, live.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamMatchView {
    pub home: TeamSideView,
    pub away: TeamSideView,
    /// When a captain of the away team accepted: a match not accepted by
    /// its start time is cancelled.
    pub accepted_at: Option<Timestamp>,
    /// Once started, by board.
    pub boards: Vec<BoardView>,
    /// Games still under way.
    pub under_way: u32,
    /// Once finished: the team with more points (null on a tie).
    pub winner: Option<TeamRef>,
}

/// A captain's board order for their team: these players first, in this
/// order, the others after them by rating.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardOrderRequest {
    pub usernames: Vec<String>,
}
