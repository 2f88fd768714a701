//! Webhooks: an account's URLs that receive its events, each POSTed as JSON
//! and signed with HMAC-SHA256, from a queue in the database (a restart
//! loses none), retried with backoff for a day.

use std::{collections::HashMap, time::Duration};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::{
    clock::{DAY, HOUR, Millis, SECOND},
    credentials::new_id,
    db::DbConnection,
    domain::webhook_targets,
    error::{ApiError, Code},
    models::event::{self, Attempt, DeliveryRow, FairlyDue, WebhookRow},
    stored::{AccountId, KeyList, WebhookId},
    views::{
        CreateWebhookRequest, DeliveryList, DeliveryStatus, DeliveryView, EventKind, EventView,
        Timestamp, WebhookList, WebhookView,
    },
};

/// How long a delivery is retried before it is given up.
pub const RETRY_FOR: Millis = DAY;
/// How long an instance holds a delivery it is attempting.
const LEASE: Millis = 60 * SECOND;

impl From<WebhookRow> for WebhookView {
    fn from(row: WebhookRow) -> WebhookView {
        WebhookView {
            events: row.kinds.into_values(),
            id: row.id.into(),
            url: row.url,
            created_at: Timestamp(row.created_at),
        }
    }
}

impl From<DeliveryRow> for DeliveryView {
    fn from(row: DeliveryRow) -> DeliveryView {
        DeliveryView {
            next_attempt_at: (row.status == DeliveryStatus::Pending)
                .then_some(Timestamp(row.next_attempt_at)),
            id: row.id,
            event_id: row.event_id,
            status: row.status,
            attempts: row.attempts,
            last_status: row.last_status,
            last_error: row.last_error,
            delivered_at: row.delivered_at.map(Timestamp),
            created_at: Timestamp(row.created_at),
        }
    }
}

/// The most webhooks an account may have.
pub const MAX_PER_ACCOUNT: usize = 10;

/// Registers a webhook; `allow_private` lets it name a private address
/// (development and tests: see [`webhook_targets`]).
pub fn create(
    conn: &mut DbConnection,
    now: Millis,
    account_id: &AccountId,
    request: CreateWebhookRequest,
    allow_private: bool,
) -> Result<WebhookView, ApiError> {
    webhook_targets::check_url(&request.url, allow_private)
        .map_err(|reason| ApiError::invalid(Code::InvalidWebhook, reason))?;
    if event::webhooks_of(conn, account_id)?.len() >= MAX_PER_ACCOUNT {
        return Err(ApiError::invalid(
            Code::TooManyWebhooks,
            format!("an account has at most {MAX_PER_ACCOUNT} webhooks: remove one first"),
        ));
    }
    if !(16..=256).contains(&request.secret.expose().chars().count()) {
        return Err(ApiError::invalid(
            Code::InvalidWebhook,
            "the secret has 16 to 256 characters",
        ));
    }
    if request.events.is_empty() {
        return Err(ApiError::invalid(
            Code::InvalidWebhook,
            "name at least one event type",
        ));
    }
    let mut kinds = request.events;
    kinds.sort_unstable_by_key(|kind| kind.key());
    kinds.dedup();
    let row = WebhookRow {
        id: new_id().into(),
        account_id: account_id.to_owned(),
        url: request.url,
        secret: request.secret.expose().to_owned(),
        kinds: KeyList::new(kinds),
        created_at: now,
    };
    event::insert_webhook(conn, &row)?;
    Ok(row.into())
}

/// The caller's webhook `id`.
pub fn owned(
    conn: &mut DbConnection,
    account_id: &AccountId,
    id: &WebhookId,
) -> Result<WebhookRow, ApiError> {
    event::find_webhook(conn, id)?
        .filter(|hook| hook.account_id == *account_id)
        .ok_or_else(|| ApiError::NotFound(format!("webhook {id}")))
}

/// How many deliveries of a webhook its log shows, newest first.
pub const DELIVERIES_LISTED: i64 = 100;

/// The account's webhooks.
pub fn list(conn: &mut DbConnection, account_id: &AccountId) -> Result<WebhookList, ApiError> {
    let rows = event::webhooks_of(conn, account_id)?;
    Ok(WebhookList {
        webhooks: rows.into_iter().map(WebhookView::from).collect(),
    })
}

/// Removes one of the account's webhooks, with its pending deliveries.
pub fn delete(
    conn: &mut DbConnection,
    account_id: &AccountId,
    id: &WebhookId,
) -> Result<(), ApiError> {
    owned(conn, account_id, id)?;
    Ok(event::delete_webhook(conn, id)?)
}

/// The newest deliveries of one of the account's webhooks.
pub fn deliveries(
    conn: &mut DbConnection,
    account_id: &AccountId,
    id: &WebhookId,
) -> Result<DeliveryList, ApiError> {
    owned(conn, account_id, id)?;
    let rows = event::deliveries_of(conn, id, DELIVERIES_LISTED)?;
    Ok(DeliveryList {
        deliveries: rows.into_iter().map(DeliveryView::from).collect(),
    })
}

/// The signature header of a body: `sha256=<hex HMAC-SHA256>`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256={hex}")
}

/// One delivery to attempt, with what it needs.
#[derive(Debug)]
pub struct Due {
    pub delivery: DeliveryRow,
    /// Whose webhook it is for.
    pub account_id: AccountId,
    pub url: String,
    pub secret: String,
    pub kind: EventKind,
    pub body: Vec<u8>,
}

/// Deliveries an instance sends at once, in all.
pub const IN_FLIGHT: usize = 64;
/// Of them, the most for one account's webhooks, and for one webhook: an
/// account whose endpoints never answer holds these places for the
/// attempts' timeout, and no more, whatever its backlog.
pub const IN_FLIGHT_PER_ACCOUNT: usize = 4;
const IN_FLIGHT_PER_WEBHOOK: usize = 2;

/// The deliveries this instance is sending, by account and webhook.
#[derive(Debug, Default)]
pub struct InFlight {
    total: usize,
    by_account: HashMap<String, usize>,
    by_webhook: HashMap<String, usize>,
}

impl InFlight {
    fn has_room(&self, due: &FairlyDue) -> bool {
        let count = |counts: &HashMap<String, usize>, key: &str| counts.get(key).copied();
        self.total < IN_FLIGHT
            && count(&self.by_account, &due.account_id).unwrap_or(0) < IN_FLIGHT_PER_ACCOUNT
            && count(&self.by_webhook, &due.delivery.webhook_id).unwrap_or(0)
                < IN_FLIGHT_PER_WEBHOOK
    }

    fn add(&mut self, account: &str, webhook: &str) {
        self.total += 1;
        *self.by_account.entry(account.to_owned()).or_default() += 1;
        *self.by_webhook.entry(webhook.to_owned()).or_default() += 1;
    }

    /// A delivery's attempt (for `account`'s `webhook`) is over: its place
    /// is free.
    pub fn release(&mut self, account: &str, webhook: &str) {
        self.total -= 1;
        for (counts, key) in [
            (&mut self.by_account, account),
            (&mut self.by_webhook, webhook),
        ] {
            if let Some(count) = counts.get_mut(key) {
                *count -= 1;
                if *count == 0 {
                    counts.remove(key);
                }
            }
        }
    }
}

/// Claims the deliveries due by `now` that `in_flight` has room for, each
/// leased long enough for its attempt, in turns across accounts (see
/// [`event::due_fairly`]): one account's backlog, however long, delays
/// only its own deliveries. Counted in `in_flight` until removed.
pub fn claim_due(
    conn: &mut DbConnection,
    now: Millis,
    in_flight: &mut InFlight,
) -> Result<Vec<Due>, ApiError> {
    let room = IN_FLIGHT.saturating_sub(in_flight.total);
    if room == 0 {
        return Ok(Vec::new());
    }
    let per_account = i64::try_from(IN_FLIGHT_PER_ACCOUNT).unwrap_or(i64::MAX);
    let candidates = i64::try_from(room * 2).unwrap_or(i64::MAX);
    let mut claimed = Vec::new();
    for due in event::due_fairly(conn, now, per_account, candidates)? {
        if !in_flight.has_room(&due) || !event::claim_delivery(conn, &due.delivery, now + LEASE)? {
            continue;
        }
        let FairlyDue {
            delivery,
            account_id,
        } = due;
        let (Some(hook), Some(row)) = (
            event::find_webhook(conn, &delivery.webhook_id)?,
            event::find(conn, delivery.event_id)?,
        ) else {
            // The webhook or the event is gone: nothing to send.
            give_up(conn, &delivery, "the webhook or its event no longer exists")?;
            continue;
        };
        in_flight.add(&account_id, &delivery.webhook_id);
        let body = serde_json::to_vec(&EventView::from(row.clone()))
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        claimed.push(Due {
            delivery,
            account_id,
            url: hook.url,
            secret: hook.secret,
            kind: row.kind,
            body,
        });
    }
    Ok(claimed)
}

fn give_up(conn: &mut DbConnection, delivery: &DeliveryRow, why: &str) -> Result<(), ApiError> {
    let attempt = Attempt {
        status: DeliveryStatus::Failed,
        attempts: delivery.attempts,
        next_attempt_at: delivery.next_attempt_at,
        last_status: delivery.last_status,
        last_error: Some(why.to_owned()),
        delivered_at: None,
    };
    Ok(event::record_attempt(conn, &delivery.id, &attempt)?)
}

/// What an attempt came to: the HTTP status, or why there was none.
pub type AttemptResult = Result<u16, String>;

/// Records an attempt: delivered on a 2xx, else retried later with
/// backoff, or given up a day after the event.
pub fn record(
    conn: &mut DbConnection,
    due: &Due,
    result: AttemptResult,
    now: Millis,
) -> Result<(), ApiError> {
    let attempts = due.delivery.attempts + 1;
    let (status_code, error) = match &result {
        Ok(code) => (
            Some(i32::from(*code)),
            (!(200..300).contains(code)).then(|| format!("HTTP {code}")),
        ),
        Err(error) => (None, Some(error.clone())),
    };
    let backoff = crate::clock::backoff(attempts, HOUR);
    let status = match &error {
        None => DeliveryStatus::Delivered,
        Some(_) if now + backoff - due.delivery.created_at > RETRY_FOR => DeliveryStatus::Failed,
        Some(_) => DeliveryStatus::Pending,
    };
    let attempt = Attempt {
        status,
        attempts,
        next_attempt_at: now + backoff,
        last_status: status_code,
        last_error: error,
        delivered_at: (status == DeliveryStatus::Delivered).then_some(now),
    };
    Ok(event::record_attempt(conn, &due.delivery.id, &attempt)?)
}

/// Installs the TLS crypto provider (ring) for HTTP clients: rustls panics
/// without one. Idempotent.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The longest one attempt takes, well inside its lease, so that no other
/// instance takes a delivery while it is being sent.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
const _: () = assert!(ATTEMPT_TIMEOUT.as_millis() * 3 < LEASE as u128);

/// How deliveries are sent.
#[derive(Debug, Clone)]
pub struct Sender {
    client: reqwest::Client,
    allow_private: bool,
}

impl Sender {
    /// Sends to public addresses only, unless `allow_private`; follows no
    /// redirect (a 3xx is a failed attempt).
    pub fn new(allow_private: bool) -> Sender {
        install_tls_provider();
        Sender {
            client: webhook_targets::outward_client(allow_private, ATTEMPT_TIMEOUT),
            allow_private,
        }
    }

    /// POSTs a delivery: the event as JSON, its kind, id and signature in
    /// headers. What the account is told of a failure says no more than
    /// what kind it was: the status code, or that it was refused, timed
    /// out or found no server.
    pub async fn send(&self, due: &Due) -> AttemptResult {
        // Checked again: the URL may predate the rules, and an address
        // host is never resolved.
        if webhook_targets::check_url(&due.url, self.allow_private).is_err() {
            return Err(webhook_targets::REFUSED.to_owned());
        }
        self.client
            .post(&due.url)
            .header("content-type", "application/json")
            .header("x-kingpost-delivery", &due.delivery.id)
            .header("x-kingpost-event", due.kind.key())
            .header("x-kingpost-signature", signature(&due.secret, &due.body))
            .body(due.body.clone())
            .send()
            .await
            .map(|response| response.status().as_u16())
            .map_err(|e| failure_of(&e))
    }
}

/// A failed attempt in a few words.
fn failure_of(error: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = Some(error);
    while let Some(cause) = source {
        if cause.to_string() == webhook_targets::REFUSED {
            return webhook_targets::REFUSED.to_owned();
        }
        source = cause.source();
    }
    if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_connect() {
        "could not connect".to_owned()
    } else {
        "failed".to_owned()
    }
}
