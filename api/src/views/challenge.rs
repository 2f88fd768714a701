//! Challenges: what a challenger sends and both sides read.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{PlayerView, RuleKey, StartSpec};
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
    #[derive(Default, Serialize, Deserialize, ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum ColorChoice ("colour choice") {
        White = "white",
        Black = "black",
        #[default]
        Random = "random",
    }
}

text_enum! {
    /// Where a challenge stands.
    #[derive(Serialize, ToSchema)]
    #[serde(rename_all = "snake_case")]
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
    #[schema(value_type = DaysPerMove)]
    pub days_per_move: i32,
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
    #[schema(value_type = DaysPerMove)]
    pub days_per_move: i32,
    /// The challenger's colour: `white`, `black` or `random`.
    pub color: ColorChoice,
    pub rated: bool,
    pub status: ChallengeStatus,
    /// The game, once accepted.
    pub game_id: Option<String>,
    pub created_at: String,
}

/// The caller's challenges.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChallengeList {
    /// Open challenges addressed to the caller.
    pub incoming: Vec<ChallengeView>,
    /// Open challenges the caller made.
    pub outgoing: Vec<ChallengeView>,
    /// Open challenges to anyone, by others (the newest 50).
    pub open: Vec<ChallengeView>,
}
