//! Web Push: the browsers that receive an account's notifications, and the
//! pushes to them. A push is queued in the transaction of its event, one a
//! subscription; when sent, its payload (title, text, the page to open) is
//! written from the event, encrypted to the browser's keys (RFC 8291
//! `aes128gcm`) and posted to the browser's push service with a VAPID
//! signature (RFC 8292) under the server's key pair. A subscription its
//! push service says is gone (404, 410) is removed.

use std::{collections::HashMap, time::Duration};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde_json::json;
use web_push_native::{
    jwt_simple::prelude::{Claims, ECDSAP256KeyPairLike, ECDSAP256PublicKeyLike, ES256KeyPair},
    p256,
};

use crate::{
    clock::{HOUR, MINUTE, Millis},
    credentials::{JwtKeys, new_id},
    db::{DbConnection, write_transaction},
    domain::{notices, webhook_targets},
    error::{ApiError, Code},
    models::{
        event::{self, EventRow},
        game::{self, GameRow},
        mail::{FAILED, PENDING},
        notification,
        push::{self, PushRow, SubscriptionRow},
    },
    stored::{AccountId, GameId},
    views::{PushSubscriptionList, PushSubscriptionRequest, PushSubscriptionView, Timestamp},
};

/// Subscriptions one account may hold: its browsers and devices.
pub const MAX_PER_ACCOUNT: usize = 10;
/// How long one instance holds a push it is sending.
const LEASE: Millis = MINUTE;
/// Attempts before a push is given up: a notification a day late is noise.
const MOST_ATTEMPTS: i32 = 10;
/// How long a push service keeps a push for a browser that is offline.
const TIME_TO_LIVE: Duration = Duration::from_secs(24 * 3600);
/// The longest one attempt takes.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a VAPID signature is used: well inside the 12 hours it is
/// signed for.
const SIGNATURE_REUSE: Duration = Duration::from_secs(3600);
/// The most of a notice's text a push carries: payloads are at most 4 KiB.
const MOST_TEXT: usize = 600;

/// How the server pushes: its VAPID key pair, the contact it signs with,
/// and an HTTP client held to the rules webhooks are.
pub struct Pusher {
    key: ES256KeyPair,
    /// Each push service's `Authorization` header and when it was signed:
    /// a signature serves many pushes (RFC 8292 allows it until its
    /// expiry), and signing each would cost as much as encrypting it.
    signed: std::sync::Mutex<HashMap<String, (String, std::time::Instant)>>,
    /// `mailto:` or `https:`: whom a push service may contact (RFC 8292).
    subject: String,
    client: reqwest::Client,
    allow_private: bool,
}

impl std::fmt::Debug for Pusher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pusher")
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

impl Pusher {
    /// From the private key (the P-256 scalar, base64url, as `kingpost
    /// vapid-key` prints it) and the contact.
    pub fn new(private_key: &str, subject: &str, allow_private: bool) -> anyhow::Result<Pusher> {
        let raw = URL_SAFE_NO_PAD
            .decode(private_key.trim())
            .map_err(|_| anyhow::anyhow!("the VAPID private key is not base64url"))?;
        let key = ES256KeyPair::from_bytes(&raw)
            .map_err(|e| anyhow::anyhow!("the VAPID private key is not a P-256 key: {e}"))?;
        if !(subject.starts_with("mailto:") || subject.starts_with("https:")) {
            anyhow::bail!(
                "the VAPID subject `{subject}` is neither a mailto: nor an https: URL: set \
                 --vapid-subject (KINGPOST_VAPID_SUBJECT), mailto:you@example.org"
            );
        }
        super::webhooks::install_tls_provider();
        Ok(Pusher {
            key,
            signed: Default::default(),
            subject: subject.to_owned(),
            client: webhook_targets::outward_client(allow_private, ATTEMPT_TIMEOUT),
            allow_private,
        })
    }

    /// A new private key, base64url: for `kingpost vapid-key`.
    pub fn new_private_key() -> String {
        URL_SAFE_NO_PAD.encode(ES256KeyPair::generate().to_bytes())
    }

    /// The public key browsers subscribe with (`applicationServerKey`): the
    /// uncompressed point, base64url.
    pub fn public_key(&self) -> String {
        let point = self.key.public_key().public_key().to_bytes_uncompressed();
        URL_SAFE_NO_PAD.encode(point)
    }

    /// The `Authorization` header for `endpoint`: a VAPID JWT whose audience
    /// is the endpoint's origin (its port included when it is not the
    /// scheme's), with the public key.
    fn authorization(&self, endpoint: &reqwest::Url) -> Result<String, String> {
        let origin = endpoint.origin().ascii_serialization();
        let mut signed = self.signed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((header, at)) = signed.get(&origin)
            && at.elapsed() < SIGNATURE_REUSE
        {
            return Ok(header.clone());
        }
        let claims = Claims::create(web_push_native::jwt_simple::prelude::Duration::from_hours(
            12,
        ))
        .with_audience(&origin)
        .with_subject(&self.subject);
        let token = self.key.sign(claims).map_err(|e| e.to_string())?;
        let header = format!("vapid t={token}, k={}", self.public_key());
        // Push services are few; endpoints of many origins (clients choose
        // them) must not grow the cache without bound.
        if signed.len() >= 1000 {
            signed.clear();
        }
        signed.insert(origin, (header.clone(), std::time::Instant::now()));
        Ok(header)
    }

    /// Posts one push: how it went.
    pub async fn send(&self, ready: &Ready) -> Outcome {
        let Ok(endpoint) = webhook_targets::check_url(&ready.endpoint, self.allow_private) else {
            return Outcome::Gone;
        };
        let body = match encrypt(ready) {
            Ok(body) => body,
            Err(error) => return Outcome::Failed(error),
        };
        let authorization = match self.authorization(&endpoint) {
            Ok(header) => header,
            Err(error) => return Outcome::Failed(error),
        };
        let sent = self
            .client
            .post(endpoint)
            .header("TTL", TIME_TO_LIVE.as_secs())
            .header("Urgency", "normal")
            // Game ids and event kinds are base64url and at most 32 long.
            .header("Topic", &ready.tag)
            .header("Content-Encoding", "aes128gcm")
            .header("Content-Type", "application/octet-stream")
            .header("Authorization", authorization)
            .body(body)
            .send()
            .await;
        match sent.map(|response| response.status().as_u16()) {
            Ok(200..=299) => Outcome::Sent,
            Ok(404 | 410) => Outcome::Gone,
            Ok(status @ (429 | 500..=599)) => Outcome::Retry(format!("status {status}")),
            Ok(status) => Outcome::Failed(format!("status {status}")),
            Err(error) if error.is_timeout() => Outcome::Retry("timed out".to_owned()),
            Err(_) => Outcome::Retry("could not connect".to_owned()),
        }
    }
}

/// The payload encrypted to the browser's keys (RFC 8291).
fn encrypt(ready: &Ready) -> Result<Vec<u8>, String> {
    let key = URL_SAFE_NO_PAD
        .decode(&ready.p256dh)
        .ok()
        .and_then(|bytes| p256::PublicKey::from_sec1_bytes(&bytes).ok())
        .ok_or("the subscription's key is not a P-256 point")?;
    let auth = URL_SAFE_NO_PAD
        .decode(&ready.auth)
        .ok()
        .filter(|bytes| bytes.len() == 16)
        .ok_or("the subscription's secret is not 16 bytes")?;
    let auth = web_push_native::Auth::clone_from_slice(&auth);
    web_push_native::encrypt(ready.payload.clone(), &key, &auth).map_err(|e| e.to_string())
}

/// How a push went.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Sent,
    /// The push service no longer knows the subscription: it is removed.
    Gone,
    /// Worth another attempt (the push service busy or unreachable).
    Retry(String),
    /// Refused for good.
    Failed(String),
}

/// A push leased for an attempt, with what it carries.
#[derive(Debug)]
pub struct Ready {
    pub push: PushRow,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    /// The JSON the service worker reads: `title`, `body`, `url`, `tag`.
    pub payload: Vec<u8>,
    /// What the push is about (its game, or its event's kind): a newer
    /// push on it replaces an older one, in the browser and, through the
    /// `Topic` header (RFC 8030), at the push service.
    pub tag: String,
}

/// The refusal of a request that needs push on a server that sends none.
pub fn off() -> ApiError {
    ApiError::Refused {
        code: Code::PushOff,
        detail: "this server sends no Web Push: its operator has set no VAPID key".to_owned(),
    }
}

fn view(row: SubscriptionRow) -> PushSubscriptionView {
    PushSubscriptionView {
        id: row.id,
        endpoint: row.endpoint,
        created_at: Timestamp(row.created_at),
    }
}

/// Stores the browser's subscription for `account` (replacing any of the
/// same endpoint): checked as a webhook URL is, its key a P-256 point and
/// its secret 16 bytes.
pub fn subscribe(
    conn: &mut DbConnection,
    account: &AccountId,
    request: PushSubscriptionRequest,
    allow_private: bool,
    now: Millis,
) -> Result<PushSubscriptionView, ApiError> {
    let refuse = |detail: String| ApiError::invalid(Code::InvalidSubscription, detail);
    let endpoint = webhook_targets::check_url(&request.endpoint, allow_private)
        .map_err(|e| refuse(format!("endpoint: {e}")))?;
    if endpoint.scheme() != "https" && !allow_private {
        return Err(refuse(
            "endpoint: a push service is reached over https".to_owned(),
        ));
    }
    let key = URL_SAFE_NO_PAD.decode(request.keys.p256dh.trim_end_matches('='));
    if !key.is_ok_and(|bytes| p256::PublicKey::from_sec1_bytes(&bytes).is_ok()) {
        return Err(refuse(
            "keys.p256dh: not a P-256 public key in base64url".to_owned(),
        ));
    }
    let auth = URL_SAFE_NO_PAD.decode(request.keys.auth.trim_end_matches('='));
    if !auth.is_ok_and(|bytes| bytes.len() == 16) {
        return Err(refuse("keys.auth: not 16 bytes in base64url".to_owned()));
    }
    let row = SubscriptionRow {
        id: new_id(),
        account_id: account.clone(),
        endpoint: request.endpoint,
        p256dh: request.keys.p256dh.trim_end_matches('=').to_owned(),
        auth: request.keys.auth.trim_end_matches('=').to_owned(),
        created_at: now,
    };
    write_transaction(conn, |conn| {
        let held = push::of_account(conn, account)?;
        if held.len() >= MAX_PER_ACCOUNT && !held.iter().any(|s| s.endpoint == row.endpoint) {
            return Err(ApiError::invalid(
                Code::TooManySubscriptions,
                format!("at most {MAX_PER_ACCOUNT} browsers an account: remove one first"),
            ));
        }
        push::insert(conn, &row)?;
        Ok(view(row.clone()))
    })
}

pub fn list(
    conn: &mut DbConnection,
    account: &AccountId,
) -> Result<PushSubscriptionList, ApiError> {
    let rows = push::of_account(conn, account)?;
    Ok(PushSubscriptionList {
        subscriptions: rows.into_iter().map(view).collect(),
    })
}

/// Removes one of the account's subscriptions, or `404`.
pub fn unsubscribe(conn: &mut DbConnection, account: &AccountId, id: &str) -> Result<(), ApiError> {
    write_transaction(conn, |conn| match push::find(conn, id)? {
        Some(row) if &row.account_id == account => {
            push::delete(conn, id)?;
            push::count_subscriptions(conn, account)?;
            Ok(())
        }
        _ => Err(ApiError::NotFound("push subscription".to_owned())),
    })
}

/// A batch of pushes leased to this instance, ready to send.
#[derive(Debug, Default)]
pub struct Claim {
    /// The pushes to send.
    pub ready: Vec<Ready>,
    /// Pushes a newer one on their game replaces: never sent.
    pub superseded: Vec<i64>,
    /// Pushes whose subscription or event is gone.
    pub orphaned: Vec<i64>,
    /// Whether the batch was as large as asked: more may be due.
    pub full: bool,
}

/// Leases the pushes due now (up to `limit`) to this instance: a short
/// write, kept apart from the reads that prepare them.
pub fn lease_due(
    conn: &mut DbConnection,
    now: Millis,
    limit: i64,
) -> Result<Vec<PushRow>, ApiError> {
    Ok(write_transaction(conn, |conn| {
        push::lease_due(conn, now, now + LEASE, limit)
    })?)
}

/// Prepares leased pushes, each with its payload written from its event as
/// things stand, their subscriptions, events and games read a statement
/// each. Of a browser's pushes on one game only the newest is sent: its
/// notification would replace the others as they arrived.
pub fn prepare(
    conn: &mut DbConnection,
    keys: &JwtKeys,
    leased: Vec<PushRow>,
    limit: i64,
) -> Result<Claim, ApiError> {
    let mut claim = Claim {
        full: leased.len() as i64 == limit,
        ..Claim::default()
    };
    if leased.is_empty() {
        return Ok(claim);
    }
    // The pages a push opens are the service worker's own origin's.
    let links = notices::Links::new("", keys);
    let ids: Vec<&str> = leased.iter().map(|p| p.subscription_id.as_str()).collect();
    let subscriptions: HashMap<String, SubscriptionRow> = push::find_all(conn, &ids)?
        .into_iter()
        .map(|s| (s.id.clone(), s))
        .collect();
    let ids: Vec<i64> = leased.iter().map(|p| p.event_id).collect();
    let events: HashMap<i64, EventRow> = event::find_all(conn, &ids)?
        .into_iter()
        .map(|e| (e.id, e))
        .collect();
    let game_ids: Vec<&GameId> = events.values().filter_map(|e| e.game_id.as_ref()).collect();
    let games: HashMap<GameId, GameRow> = game::find_all(conn, &game_ids)?
        .into_iter()
        .map(|g| (g.id.clone(), g))
        .collect();
    let mut newest: HashMap<(&str, &str), i64> = HashMap::new();
    for row in &leased {
        if let Some(event) = events.get(&row.event_id) {
            let tag = tag_of(event);
            let id = newest.entry((&row.subscription_id, tag)).or_default();
            *id = (*id).max(row.id);
        }
    }
    let mut zones = HashMap::new();
    for row in &leased {
        let (Some(subscription), Some(event)) = (
            subscriptions.get(&row.subscription_id),
            events.get(&row.event_id),
        ) else {
            claim.orphaned.push(row.id);
            continue;
        };
        let tag = tag_of(event);
        if newest[&(row.subscription_id.as_str(), tag)] != row.id {
            claim.superseded.push(row.id);
            continue;
        }
        if !zones.contains_key(&event.account_id) {
            let zone = notification::find(conn, &event.account_id)?
                .map_or(jiff::tz::TimeZone::UTC, |s| {
                    super::notifications::zone(&s.time_zone)
                });
            zones.insert(event.account_id.clone(), zone);
        }
        let game = event.game_id.as_ref().and_then(|id| games.get(id));
        let notice = notices::notice_of(conn, &links, event, game, &zones[&event.account_id])?;
        claim.ready.push(Ready {
            push: row.clone(),
            endpoint: subscription.endpoint.clone(),
            p256dh: subscription.p256dh.clone(),
            auth: subscription.auth.clone(),
            payload: payload(&notice, tag),
            tag: tag.to_owned(),
        });
    }
    Ok(claim)
}

/// What a push is about: its game, or its event's kind.
fn tag_of(event: &EventRow) -> &str {
    event.game_id.as_deref().unwrap_or(event.kind.key())
}

/// The JSON the service worker reads, its text cut to fit a push.
fn payload(notice: &notices::Notice, tag: &str) -> Vec<u8> {
    let mut body = notice.lines.join("\n");
    if body.len() > MOST_TEXT {
        let cut = (0..=MOST_TEXT)
            .rev()
            .find(|&i| body.is_char_boundary(i))
            .unwrap_or(0);
        body.truncate(cut);
        body.push('…');
    }
    let payload = json!({
        "title": notice.subject,
        "body": body,
        "url": notice.action.1,
        "tag": tag,
    });
    payload.to_string().into_bytes()
}

/// Records how a batch went, in one transaction: the superseded and the
/// orphaned marked so; each attempt sent; its subscription removed when
/// its push service says it is gone; retried after a wait that grows (ten
/// seconds, doubling, at most an hour); or given up.
pub fn record(
    conn: &mut DbConnection,
    claim: &Claim,
    attempts: &[(Ready, Outcome)],
    now: Millis,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        push::mark(
            conn,
            &claim.superseded,
            push::SUPERSEDED,
            Some("a newer push on its game"),
            now,
        )?;
        push::mark(conn, &claim.orphaned, FAILED, Some("gone"), now)?;
        let sent: Vec<i64> = attempts
            .iter()
            .filter(|(_, outcome)| *outcome == Outcome::Sent)
            .map(|(ready, _)| ready.push.id)
            .collect();
        push::mark_sent(conn, &sent, now)?;
        for (ready, outcome) in attempts {
            let push = &ready.push;
            match outcome {
                Outcome::Sent => {}
                Outcome::Gone => {
                    if let Some(row) = push::find(conn, &push.subscription_id)? {
                        push::delete(conn, &row.id)?;
                        push::count_subscriptions(conn, &row.account_id)?;
                    }
                }
                Outcome::Failed(error) => push::record_failure(conn, push.id, FAILED, now, error)?,
                Outcome::Retry(error) if push.attempts >= MOST_ATTEMPTS => {
                    push::record_failure(conn, push.id, FAILED, now, error)?
                }
                Outcome::Retry(error) => {
                    let wait = crate::clock::backoff(push.attempts, HOUR);
                    push::record_failure(conn, push.id, PENDING, now + wait, error)?
                }
            }
        }
        Ok(())
    })
}
