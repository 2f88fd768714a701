//! Events: what an account learns of its games and challenges, stored in
//! order in the same transaction as the change, so that a stream resumes
//! from the log without gaps and webhooks are delivered from a queue.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::{
    clock::{DAY, Millis, rfc3339},
    credentials::new_id,
    db::DbConnection,
    error::ApiError,
    models::event::{self, DeliveryRow, EventRow, NewEvent},
    notify::{Outbox, account_signal},
};

/// How long the log keeps events for streams to resume from.
pub const RETENTION: Millis = 30 * DAY;

/// The kinds of event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    ChallengeReceived,
    ChallengeAccepted,
    ChallengeDeclined,
    GameStarted,
    OpponentMoved,
    DrawOffered,
    GameFinished,
    /// A quarter of the time for the move is left.
    DeadlineNear,
}

impl EventKind {
    pub const ALL: [EventKind; 8] = [
        EventKind::ChallengeReceived,
        EventKind::ChallengeAccepted,
        EventKind::ChallengeDeclined,
        EventKind::GameStarted,
        EventKind::OpponentMoved,
        EventKind::DrawOffered,
        EventKind::GameFinished,
        EventKind::DeadlineNear,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::ChallengeReceived => "challenge_received",
            EventKind::ChallengeAccepted => "challenge_accepted",
            EventKind::ChallengeDeclined => "challenge_declined",
            EventKind::GameStarted => "game_started",
            EventKind::OpponentMoved => "opponent_moved",
            EventKind::DrawOffered => "draw_offered",
            EventKind::GameFinished => "game_finished",
            EventKind::DeadlineNear => "deadline_near",
        }
    }

    pub fn parse(text: &str) -> Option<EventKind> {
        EventKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }
}

/// An event as streams, webhooks and the log show it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EventView {
    /// Increasing: resume after it with `Last-Event-ID` or `?since=`.
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub created_at: String,
    pub game_id: Option<String>,
    pub data: Value,
}

impl From<EventRow> for EventView {
    fn from(row: EventRow) -> EventView {
        EventView {
            id: row.id,
            kind: row.kind,
            created_at: rfc3339(row.created_at),
            game_id: row.game_id,
            data: serde_json::from_str(&row.data).unwrap_or(Value::Null),
        }
    }
}

/// Stores an event for `account_id`, queues its webhook deliveries and
/// signals the account's streams.
pub fn record(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    account_id: &str,
    kind: EventKind,
    game_id: Option<&str>,
    data: Value,
) -> Result<(), ApiError> {
    let data = data.to_string();
    let id = event::insert(
        conn,
        &NewEvent {
            account_id,
            kind: kind.as_str(),
            game_id,
            data: &data,
            created_at: now,
        },
    )?;
    for hook in event::webhooks_of(conn, account_id)? {
        if hook.kinds.split_whitespace().any(|k| k == kind.as_str()) {
            event::insert_delivery(
                conn,
                &DeliveryRow {
                    id: new_id(),
                    webhook_id: hook.id,
                    event_id: id,
                    status: "pending".to_owned(),
                    attempts: 0,
                    next_attempt_at: now,
                    last_status: None,
                    last_error: None,
                    created_at: now,
                    delivered_at: None,
                },
            )?;
        }
    }
    outbox.push(conn, account_signal(account_id))?;
    Ok(())
}

/// An account's events after `after`, oldest first, at most `limit`.
pub fn since(
    conn: &mut DbConnection,
    account_id: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<EventView>, ApiError> {
    Ok(event::since(conn, account_id, after, limit)?
        .into_iter()
        .map(EventView::from)
        .collect())
}
