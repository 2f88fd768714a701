//! Events, their streams and webhooks.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Timestamp;
use crate::{secret::Secret, stored::text_enum};

text_schema!(
    EventStreamText,
    "Server-Sent Events records (`text/event-stream`): `id:`, `event:` and `data:` lines, \
     `data` holding an `EventView` as JSON."
);

text_enum! {
    /// The kinds of event.
    #[derive(ToSchema)]
    pub enum EventKind ("event type") {
        ChallengeReceived = "challenge_received",
        ChallengeAccepted = "challenge_accepted",
        ChallengeDeclined = "challenge_declined",
        GameStarted = "game_started",
        OpponentMoved = "opponent_moved",
        DrawOffered = "draw_offered",
        GameFinished = "game_finished",
        /// The deadline is a day away, or a quarter of the time for the move
        /// when that is shorter (never while the player is on vacation).
        DeadlineNear = "deadline_near",
        /// A rated game finished and moved the account's rating.
        RatingChanged = "rating_changed",
        /// Someone joined a tournament the account organises.
        TournamentJoined = "tournament_joined",
        /// A tournament the account plays in started: its games with it.
        TournamentStarted = "tournament_started",
        /// A Swiss the account plays in paired a round after its first:
        /// their game in it (`bye` false), or their bye.
        TournamentRound = "tournament_round",
        /// A tournament the account plays in finished, with its winners.
        TournamentFinished = "tournament_finished",
        /// A captain invited the account to a team.
        TeamInvited = "team_invited",
        /// A team match the account plays in started: its two games.
        TeamMatchStarted = "team_match_started",
        /// A team match the account plays in finished, with its score.
        TeamMatchFinished = "team_match_finished",
        /// The opponent said something in a game: the message.
        MessageReceived = "message_received",
    }
}

text_enum! {
    /// Where a delivery stands.
    #[derive(ToSchema)]
    pub enum DeliveryStatus ("delivery status") {
        /// To be attempted (again).
        Pending = "pending",
        Delivered = "delivered",
        /// Given up after a day of retries.
        Failed = "failed",
    }
}

/// An event as streams, webhooks and the log show it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventView {
    /// Increasing: resume after it with `Last-Event-ID` or `?since=`.
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: EventKind,
    pub created_at: Timestamp,
    pub game_id: Option<String>,
    pub data: Value,
}

/// A webhook to register.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookRequest {
    /// An `http://` or `https://` URL that receives the events.
    pub url: String,
    /// 16 to 256 characters: the key of the `X-Kingpost-Signature` HMAC.
    #[schema(value_type = String)]
    pub secret: Secret,
    /// The event types to send.
    pub events: Vec<EventKind>,
}

/// A webhook (its secret never shown again).
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookView {
    pub id: String,
    pub url: String,
    pub events: Vec<EventKind>,
    pub created_at: Timestamp,
}

/// One delivery of an event to a webhook.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    /// Sent as `X-Kingpost-Delivery`: the same for every attempt.
    pub id: String,
    pub event_id: i64,
    pub status: DeliveryStatus,
    pub attempts: i32,
    /// The HTTP status of the last attempt.
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<Timestamp>,
    pub delivered_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// The caller's webhooks.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookView>,
}

/// A webhook's deliveries.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryList {
    /// The newest 100.
    pub deliveries: Vec<DeliveryView>,
}
