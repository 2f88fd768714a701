//! Notification settings, and "forgot password".

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{EventKind, Timestamp};
use crate::{secret::Secret, stored::text_enum};

text_enum! {
    /// When notices by e-mail go out.
    #[derive(ToSchema)]
    pub enum EmailDelivery ("e-mail delivery") {
        /// A mail an event, ten an hour at most: past them, the hour's
        /// other events in one digest at its end.
        Immediate = "immediate",
        /// One mail a day at `digest_hour`: every game to move, and what
        /// happened since the last.
        Digest = "digest",
    }
}

/// Which events reach the caller by e-mail (at a verified address), and when.
#[derive(Debug, Serialize, ToSchema)]
pub struct NotificationSettingsView {
    /// The events mailed; empty: none. The defaults: a game started, the
    /// opponent's move, a draw offer, a game's end, a deadline near, a
    /// challenge, a message and a tournament's start.
    pub email_events: Vec<EventKind>,
    pub email_delivery: EmailDelivery,
    /// The hour of the daily digest, 0 to 23, in `time_zone` (default 8).
    pub digest_hour: u8,
    /// An IANA time zone (`Europe/Paris`; default `UTC`): the digest's hour
    /// and the times mails show are in it.
    pub time_zone: String,
    /// When the next digest goes out, if one is due.
    pub next_digest_at: Option<Timestamp>,
    /// The events pushed to the account's browsers (the same defaults).
    pub push_events: Vec<EventKind>,
}

/// A change of the notification settings: fields left out keep their value.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationSettingsRequest {
    pub email_events: Option<Vec<EventKind>>,
    pub email_delivery: Option<EmailDelivery>,
    /// 0 to 23.
    pub digest_hour: Option<u8>,
    /// An IANA time zone: `Europe/Paris`, `America/New_York`, `UTC`.
    pub time_zone: Option<String>,
    pub push_events: Option<Vec<EventKind>>,
}

/// Who forgot their password: a username or an e-mail address.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgotPasswordRequest {
    pub login: String,
}

/// A new password, with the token of the link that allows it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetPasswordRequest {
    pub token: String,
    /// 8 to 128 characters, not containing the username, not one of the
    /// most common passwords.
    #[schema(value_type = String)]
    pub new_password: Secret,
}

/// The token of an unsubscribe link, as mails carry it.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UnsubscribeQuery {
    pub token: String,
}

text_schema!(
    HtmlPage,
    "An HTML page (`text/html`), for a person in a browser."
);

/// A browser's `PushSubscription`, as its `toJSON()` gives it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushSubscriptionRequest {
    /// The push service's URL for this browser (https).
    pub endpoint: String,
    /// When the browser says the subscription ends, if it does (unused:
    /// a push service that no longer knows it answers 404 or 410, and it is
    /// removed).
    #[serde(rename = "expirationTime", default)]
    pub expiration_time: Option<f64>,
    pub keys: PushKeys,
}

/// The keys a browser's payloads are encrypted to (RFC 8291).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushKeys {
    /// The browser's P-256 public key, uncompressed, base64url.
    pub p256dh: String,
    /// The 16-byte authentication secret, base64url.
    pub auth: String,
}

/// A browser that receives the account's notifications.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PushSubscriptionView {
    pub id: String,
    pub endpoint: String,
    pub created_at: Timestamp,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PushSubscriptionList {
    pub subscriptions: Vec<PushSubscriptionView>,
}

/// What a browser subscribes with.
#[derive(Debug, Serialize, ToSchema)]
pub struct PushKeyView {
    /// The server's VAPID public key (`applicationServerKey`): the
    /// uncompressed P-256 point, base64url.
    pub public_key: String,
}
