//! Events: what an account learns of its games and challenges, stored in
//! order in the same transaction as the change, so that a stream resumes
//! from the log without gaps, and webhooks and notification mails are
//! delivered from queues.

use serde_json::Value;

use crate::{
    clock::{DAY, Millis},
    credentials::new_id,
    db::DbConnection,
    domain::notifications,
    error::ApiError,
    models::{
        event::{self, DeliveryRow, EventRow, NewEvent, RecipientRow, WebhookRow},
        notification::SettingsRow,
    },
    notify::{Outbox, account_signal},
    stored::{AccountId, GameId},
    views::{DeliveryStatus, EventKind, EventView, Timestamp},
};

/// How long the log keeps events for streams to resume from.
pub const RETENTION: Millis = 30 * DAY;

/// The id of the account's latest event: a new stream begins after it.
pub fn last_id(conn: &mut DbConnection, account_id: &AccountId) -> Result<i64, ApiError> {
    Ok(event::last_id(conn, account_id)?)
}

impl From<EventRow> for EventView {
    fn from(row: EventRow) -> EventView {
        EventView {
            id: row.id,
            kind: row.kind,
            created_at: Timestamp(row.created_at),
            game_id: row.game_id.map(String::from),
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
    account_id: &AccountId,
    kind: EventKind,
    game_id: Option<&GameId>,
    data: Value,
) -> Result<(), ApiError> {
    let read = event::recipients(conn, account_id, account_id)?;
    let to = Recipient {
        account_id,
        webhooks: read.first().map_or(&[], |row| &row.webhooks),
        address: read.first().and_then(|row| row.address.as_deref()),
        settings: read.first().and_then(|row| row.settings.as_ref()),
    };
    record_for(conn, outbox, now, to, kind, game_id, data)
}

/// An account an event is for, with what it needs of it as read.
#[derive(Debug, Clone, Copy)]
pub struct Recipient<'a> {
    pub account_id: &'a AccountId,
    pub webhooks: &'a [WebhookRow],
    /// Its verified address, if any.
    pub address: Option<&'a str>,
    /// Its notification settings; none: the defaults.
    pub settings: Option<&'a SettingsRow>,
}

impl<'a> Recipient<'a> {
    pub fn of(row: &'a RecipientRow) -> Recipient<'a> {
        Recipient {
            account_id: &row.account.id,
            webhooks: &row.webhooks,
            address: row.address.as_deref(),
            settings: row.settings.as_ref(),
        }
    }
}

/// As [`record`], for an account whose webhooks were read with it.
pub fn record_for(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    to: Recipient<'_>,
    kind: EventKind,
    game_id: Option<&GameId>,
    data: Value,
) -> Result<(), ApiError> {
    let account_id = to.account_id;
    let data = data.to_string();
    let id = event::insert(
        conn,
        &NewEvent {
            account_id,
            kind,
            game_id,
            data: &data,
            created_at: now,
        },
    )?;
    for hook in to.webhooks {
        if hook.kinds.values().contains(&kind) {
            event::insert_delivery(
                conn,
                &DeliveryRow {
                    id: new_id(),
                    webhook_id: hook.id.clone(),
                    event_id: id,
                    status: DeliveryStatus::Pending,
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
    notifications::queue(conn, now, &to, kind, id)?;
    outbox.push(account_signal(account_id));
    Ok(())
}

/// An account's events after `after`, oldest first, at most `limit`.
pub fn since(
    conn: &mut DbConnection,
    account_id: &AccountId,
    after: i64,
    limit: i64,
) -> Result<Vec<EventView>, ApiError> {
    Ok(event::since(conn, account_id, after, limit)?
        .into_iter()
        .map(EventView::from)
        .collect())
}
