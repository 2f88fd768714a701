//! Tournaments, round robins and Swiss: what an organiser sends, and what
//! players and watchers read.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{
    ClockSpec, DaysPerMove, GameResult, MatchTeams, PlayerView, RatingRange, RuleKey, StartSpec,
    TeamMatchView, TeamRef, Timestamp,
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

text_enum! {
    /// How a tournament pairs its players.
    #[derive(ToSchema, Default)]
    pub enum TournamentFormat ("tournament format") {
        /// Everyone plays everyone, every game created at the start.
        #[default]
        RoundRobin = "round_robin",
        /// FIDE's Dutch system: each round paired when the one before it
        /// ends, players of equal scores meeting.
        Swiss = "swiss",
        /// Two teams, board against board: each board's players play two
        /// games at once, one with each colour.
        TeamMatch = "team_match",
    }
}

text_enum! {
    /// A tie-break of a Swiss (FIDE Handbook C.07).
    #[derive(ToSchema)]
    pub enum TieBreakKey ("tie-break") {
        /// The sum of the opponents' scores.
        Buchholz = "buchholz",
        /// Buchholz less the least significant opponent's score.
        BuchholzCut1 = "buchholz_cut1",
        /// Each opponent's score times the points scored against them.
        SonnebornBerger = "sonneborn_berger",
        /// The sum of the player's scores after each round.
        Progressive = "progressive",
        /// Points against the players still level, when all have met.
        DirectEncounter = "direct_encounter",
    }
}

text_enum! {
    /// What a Swiss's round deadline does to its games still under way.
    #[derive(ToSchema)]
    pub enum Adjudication ("adjudication") {
        /// They end as draws, adjudicated, and the next round is paired.
        Draw = "draw",
        /// The round waits for them: the deadline is the organiser's aim.
        Wait = "wait",
    }
}

text_enum! {
    /// Why a player of a Swiss has no game in a round.
    #[derive(ToSchema)]
    pub enum ByeKind ("bye") {
        /// The pairing-allocated bye: a point (the odd player out, at most
        /// once each).
        Pairing = "pairing",
        /// No point: withdrawn, or entered after the round was paired.
        Absent = "absent",
    }
}

text_schema!(
    TrfText,
    "FIDE's Tournament Report File, TRF-2016 (`text/plain`): a `012` line with the name, a `001` line for each player by pairing number with each round's opponent, colour and result, and `XXR` with the number of rounds."
);

/// A tournament to organise: a round robin, or a Swiss.
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
    #[serde(default)]
    pub format: TournamentFormat,
    /// A round robin's: each pairing played twice, once with each colour,
    /// all games at once.
    #[serde(default)]
    pub double: bool,
    /// A Swiss's number of rounds, 1 to 30; left out, it is set at the
    /// start from the entries (enough for a single winner: the base-2
    /// logarithm of the entries, rounded up, plus one), never more than
    /// the entries less one.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 30)]
    pub rounds: Option<i32>,
    /// A Swiss's tie-breaks, in order (`buchholz_cut1`, `buchholz`,
    /// `sonneborn_berger`, `direct_encounter`, `progressive` when left
    /// out), each at most once.
    #[serde(default)]
    pub tiebreaks: Option<Vec<TieBreakKey>>,
    /// A Swiss's round deadline: the days, 1 to 365, each round may last
    /// from its pairing (none when left out).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 365)]
    pub round_days: Option<i32>,
    /// What the round deadline does to games still under way (`wait` when
    /// left out).
    #[serde(default)]
    pub adjudication: Option<Adjudication>,
    /// A round robin takes 3 to 17 players; a Swiss 3 to 1,000; a team
    /// match is played on 1 to 100 boards, a player of each team on each.
    #[schema(minimum = 1, maximum = 1000)]
    pub capacity: i32,
    /// A team match's teams.
    #[serde(default)]
    pub teams: Option<MatchTeams>,
    /// Who may join: their rating in the tournament's pool.
    #[serde(default)]
    pub rating_range: Option<RatingRange>,
    /// Whether a player's vacation stops the clocks of the tournament's
    /// games (true when left out).
    #[serde(default = "yes")]
    pub vacation: bool,
    /// Whether the tournament starts as soon as it is full (true when left
    /// out), or only at its sign-up deadline, its start time.
    #[serde(default = "yes")]
    pub start_when_full: bool,
    /// When sign-up closes (RFC 3339): the tournament starts then with
    /// three players or more, or sooner once full (unless
    /// `start_when_full` is false). A team match starts then if accepted,
    /// with a player a side or more, or sooner once both sides are full.
    #[schema(format = DateTime)]
    pub signup_deadline: String,
}

fn yes() -> bool {
    true
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
    pub format: TournamentFormat,
    /// A team match's teams.
    pub home_team: Option<TeamRef>,
    pub away_team: Option<TeamRef>,
    pub double: bool,
    /// A Swiss's number of rounds (null until its start when it was left to
    /// the entries); a round robin's, once started.
    pub rounds: Option<i32>,
    /// A Swiss's round paired last (0 before the start).
    pub round: i32,
    /// A Swiss's tie-breaks, in order.
    pub tiebreaks: Vec<TieBreakKey>,
    /// A Swiss's days for each round, if it has a round deadline.
    pub round_days: Option<i32>,
    pub adjudication: Option<Adjudication>,
    /// When the round paired last ends, if it has a deadline.
    pub round_deadline: Option<Timestamp>,
    /// Whether a player's vacation stops the clocks of its games.
    pub vacation: bool,
    /// Whether it starts once full, or only at `signup_deadline`.
    pub start_when_full: bool,
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

/// A tie-break's value in a player's line.
#[derive(Debug, Serialize, ToSchema)]
pub struct TieBreakValue {
    pub tiebreak: TieBreakKey,
    /// Points (Buchholz, its cut, Sonneborn-Berger, progressive score);
    /// for the direct encounter, how many of the players still level the
    /// games between them rank below this one.
    pub value: f64,
}

/// A player's line of the standings.
#[derive(Debug, Serialize, ToSchema)]
pub struct StandingView {
    /// 1 for the first; players level on every tie-break share a place.
    pub place: usize,
    pub player: PlayerView,
    /// A round robin's Berger number, drawn at the start; a Swiss's
    /// pairing number, by rating at the start (late entries after).
    pub seat: i32,
    pub points: f64,
    /// A Swiss's tie-breaks, in its order (empty in a round robin, whose
    /// tie-breaks are the fields below).
    pub tiebreaks: Vec<TieBreakValue>,
    /// Baumbach: the number of wins.
    pub wins: u32,
    pub sonneborn_berger: f64,
    /// A round robin's: points against the players level on points, wins
    /// and Sonneborn-Berger. A Swiss's: how many of the players still
    /// level the games between them rank below this one (FIDE's C.07).
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

/// A round a player of a Swiss did not play.
#[derive(Debug, Serialize, ToSchema)]
pub struct ByeView {
    pub round: i32,
    pub player: PlayerView,
    pub kind: ByeKind,
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
    /// A Swiss's byes and absences, by round.
    pub byes: Vec<ByeView>,
    /// Once finished: those in first place (a team match's: its winning
    /// team's players).
    pub winners: Vec<PlayerView>,
    /// A team match's teams, boards and score.
    pub team_match: Option<TeamMatchView>,
}
