//! Challenges: what a challenger sends and both sides read.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ClockSpec, PlayerView, RuleKey, StartSpec, Timestamp};
use crate::stored::text_enum;

/// The days per move a game may have.
pub const DAYS_PER_MOVE: [i32; 7] = [1, 2, 3, 5, 7, 10, 14];

/// The days per move a challenge may ask for, in the spec.
#[derive(Debug)]
pub struct DaysPerMove;

impl utoipa::PartialSchema for DaysPerMove {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int32,
            )))
            .description(Some("The days each side has for a move."))
            .enum_values(Some(DAYS_PER_MOVE))
            .into()
    }
}

impl ToSchema for DaysPerMove {}

text_enum! {
    /// The colour the challenger asks for.
    #[derive(Default, ToSchema)]
    pub enum ColorChoice ("colour choice") {
        White = "white",
        Black = "black",
        #[default]
        Random = "random",
    }
}

text_enum! {
    /// Where a challenge stands.
    #[derive(ToSchema)]
    pub enum ChallengeStatus ("challenge status") {
        /// Waiting for its opponent (or anyone).
        Open = "open",
        /// A game was started from it.
        Accepted = "accepted",
        Declined = "declined",
        Cancelled = "cancelled",
    }
}

/// A challenge to make.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateChallengeRequest {
    #[schema(value_type = RuleKey)]
    pub rules: String,
    /// The start; the usual array when left out.
    #[serde(default = "standard_start")]
    pub start: StartSpec,
    /// The days each side has for every move; give this or `clock`.
    #[schema(value_type = Option<DaysPerMove>)]
    #[serde(default)]
    pub days_per_move: Option<i32>,
    /// A clock that carries time over, instead of `days_per_move`.
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    /// The challenger's colour.
    #[serde(default)]
    pub color: ColorChoice,
    /// The username challenged; left out, the challenge is open to anyone.
    #[serde(default)]
    pub opponent: Option<String>,
    /// Whether the game moves the players' ratings (not from a `fen`
    /// start); casual when left out.
    #[serde(default)]
    pub rated: bool,
    /// A seek: only players whose rating in the game's pool lies in this
    /// range may accept (a challenge open to anyone, not from a `fen`
    /// start). A player without a rating there counts as 1500.
    #[serde(default)]
    pub rating_range: Option<RatingRange>,
}

/// Bounds on a rating, both inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingRange {
    #[schema(minimum = 0, maximum = 4000)]
    pub min: i32,
    #[schema(minimum = 0, maximum = 4000)]
    pub max: i32,
}

impl RatingRange {
    /// The range stored as its two bounds, if there is one.
    pub fn of(min: Option<i32>, max: Option<i32>) -> Option<RatingRange> {
        min.zip(max).map(|(min, max)| RatingRange { min, max })
    }
}

fn standard_start() -> StartSpec {
    StartSpec::Standard {}
}

/// A challenge as both sides see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChallengeView {
    pub id: String,
    pub challenger: PlayerView,
    /// Null for a challenge open to anyone.
    pub opponent: Option<PlayerView>,
    pub rules: RuleKey,
    pub variant: String,
    pub start: StartSpec,
    /// The days for every move; 0 under a `clock`.
    pub days_per_move: i32,
    pub clock: Option<ClockSpec>,
    /// The challenger's colour: `white`, `black` or `random`.
    pub color: ColorChoice,
    pub rated: bool,
    /// A seek's bounds on its acceptor's rating.
    pub rating_range: Option<RatingRange>,
    pub status: ChallengeStatus,
    /// The game, once accepted.
    pub game_id: Option<String>,
    pub created_at: Timestamp,
}

/// The caller's challenges.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChallengeList {
    /// Open challenges addressed to the caller (the newest 50;
    /// `GET /api/v1/challenges/incoming` pages them all).
    pub incoming: Vec<ChallengeView>,
    /// Open challenges the caller made.
    pub outgoing: Vec<ChallengeView>,
    /// Open challenges to anyone, by others, that the caller may accept
    /// (the newest 50; `GET /api/v1/seeks` pages and filters them).
    pub open: Vec<ChallengeView>,
}

/// Which open seeks to list: all those the caller may accept, or those of
/// a rule set, start, days per move, rated or casual.
#[derive(Debug, Clone, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct SeekQuery {
    #[param(value_type = Option<RuleKey>)]
    pub rules: Option<String>,
    /// The start's kind: `standard`, `chess960`, `shuffle`, `prechess`, `fen`.
    pub start: Option<String>,
    #[param(value_type = Option<DaysPerMove>)]
    pub days_per_move: Option<i32>,
    pub rated: Option<bool>,
    /// Where the page begins: `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// Seeks per page, 1 to 100 (50 when left out).
    pub limit: Option<i64>,
    /// With `If-None-Match`: hold the request up to this many seconds (at
    /// most 60) until a seek is opened, taken or withdrawn and the page
    /// differs; then `304` if it did not.
    pub wait: Option<u64>,
}

/// Where a page of incoming challenges begins, and its size.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct IncomingQuery {
    /// Where the page begins: `next_cursor` of the page before.
    pub cursor: Option<String>,
    /// Challenges per page, 1 to 100 (50 when left out).
    pub limit: Option<i64>,
}

/// Open challenges addressed to the caller, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct IncomingChallenges {
    pub challenges: Vec<ChallengeView>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// Open seeks the caller may accept, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeekList {
    pub seeks: Vec<ChallengeView>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}
