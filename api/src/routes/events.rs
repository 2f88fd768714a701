//! Knowing when it is your move: the event stream (NDJSON or Server-Sent
//! Events, resumable), webhooks and their delivery log.

use std::time::Duration;

use actix_web::{
    HttpRequest, HttpResponse, delete, get,
    http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE},
    post,
    web::{self, Bytes},
};
use futures_util::stream;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::Auth,
    credentials::Scope,
    domain::webhooks,
    error::{ApiError, Code, Problem},
    routes::Query,
    state::AppState,
    stored::WebhookId,
    streams::{Follower, Next},
    views::{
        CreateWebhookRequest, DeliveryList, EventStreamText, EventView, WebhookList, WebhookView,
    },
};

/// Seconds between two keep-alive lines of an idle stream.
pub const KEEPALIVE_SECONDS: u64 = 15;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Resume after this event id (as `Last-Event-ID` does); without either,
    /// the stream starts with the next event.
    pub since: Option<i64>,
    /// `false`: send what is there after `since` and end, instead of
    /// following (for a client that polls now and then).
    pub follow: Option<bool>,
}

/// How the stream is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Ndjson,
    ServerSentEvents,
}

impl Format {
    /// What an idle stream sends: an empty line, an SSE comment.
    fn keepalive(self) -> &'static [u8] {
        match self {
            Format::Ndjson => b"\n",
            Format::ServerSentEvents => b": keep-alive\n\n",
        }
    }
}

fn write_events<'a>(format: Format, events: impl IntoIterator<Item = &'a EventView>) -> String {
    let mut out = String::new();
    for event in events {
        let json = serde_json::to_string(event).unwrap_or_default();
        match format {
            Format::Ndjson => {
                out.push_str(&json);
                out.push('\n');
            }
            Format::ServerSentEvents => {
                out.push_str(&format!(
                    "id: {}\nevent: {}\ndata: {json}\n\n",
                    event.id, event.kind
                ));
            }
        }
    }
    out
}

/// The caller's events as they happen: challenge received, accepted,
/// declined; game started; opponent moved (with the move and the new
/// deadline); draw offered; game finished; deadline near (a quarter of the
/// time for the move left). NDJSON, or Server-Sent Events with `Accept:
/// text/event-stream`. An idle stream sends a keep-alive every 15 seconds
/// (an empty line; an SSE comment). Reconnect with `Last-Event-ID` or
/// `?since=` to get what was missed: the log keeps events for 30 days.
/// With `?follow=false` the answer is what was missed, and ends.
#[utoipa::path(
    tag = "events",
    params(StreamQuery, ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this event id")),
    responses(
        (status = 200, description = "The events, one a line (or SSE records)", content(
            (EventView = "application/x-ndjson"),
            (EventStreamText = "text/event-stream"),
        )),
        (status = 429, description = "The account or address holds 20 or 50 streams and long polls open already (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/stream/events")]
pub async fn stream_events(
    state: web::Data<AppState>,
    auth: Auth,
    query: Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GameRead)?;
    let accept = req
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let format = if accept.contains("text/event-stream") {
        Format::ServerSentEvents
    } else {
        Format::Ndjson
    };
    let resume = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().parse::<i64>())
        .transpose()
        .map_err(|_| ApiError::invalid(Code::InvalidQuery, "Last-Event-ID is an event id"))?
        .or(query.since);
    let keepalive = Duration::from_secs(KEEPALIVE_SECONDS);
    let follow = query.follow.unwrap_or(true);
    let follower = Follower::start(&state, &auth, &req, resume, keepalive).await?;
    // The state: the follower, and whether the stream is done (caught up,
    // not following).
    let body = stream::unfold((follower, false), move |(mut follower, done)| async move {
        if done {
            return None;
        }
        let chunk = match follower.next().await? {
            Ok(Next::Events(events)) => Ok(Bytes::from(write_events(format, &events))),
            Ok(Next::Idle) => Ok(Bytes::from_static(format.keepalive())),
            Err(error) => Err(actix_web::Error::from(error)),
        };
        let done = !follow && follower.caught_up();
        Some((chunk, (follower, done)))
    });
    let content_type = match format {
        Format::Ndjson => "application/x-ndjson",
        Format::ServerSentEvents => "text/event-stream",
    };
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, content_type))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .streaming(body))
}

/// Register a webhook: each event of the chosen types is POSTed to the URL
/// as JSON (an event of the stream), with headers `X-Kingpost-Event`,
/// `X-Kingpost-Delivery` (the same for every attempt) and
/// `X-Kingpost-Signature: sha256=<hex HMAC-SHA256 of the body with the
/// secret>`. A delivery is done on a 2xx answer; otherwise it is retried
/// after 10 s, doubling up to an hour between attempts, for a day. The URL
/// must name a public address (the server never delivers to loopback or
/// private networks), redirects are not followed, and an attempt that takes
/// over 10 s has failed. Ten webhooks an account.
#[utoipa::path(
    tag = "events",
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The webhook", body = WebhookView),
        (status = 422, description = "A bad URL (not http or https, with a user name, or naming a private address), secret or event type (`invalid_webhook`), or ten webhooks already (`too_many_webhooks`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[post("/webhooks")]
pub async fn create_webhook(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<CreateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GameRead)?;
    let now = state.clock.now();
    let request = body.into_inner();
    let allow_private = state.allow_private_webhooks;
    let view = state
        .write(move |conn, _| webhooks::create(conn, now, &auth.account_id, request, allow_private))
        .await?;
    Ok(HttpResponse::Created().json(view))
}

/// The caller's webhooks.
#[utoipa::path(
    tag = "events",
    responses(
        (status = 200, description = "The webhooks", body = WebhookList),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/webhooks")]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<WebhookList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let list = state
        .read_own(move |conn| webhooks::list(conn, &auth.account_id))
        .await?;
    Ok(web::Json(list))
}

/// Remove a webhook and its pending deliveries.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The webhook")),
    responses(
        (status = 204, description = "Removed"),
        (status = 404, description = "No such webhook of the caller", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[delete("/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<WebhookId>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    state
        .write(move |conn, _| webhooks::delete(conn, &auth.account_id, &id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The delivery log of a webhook, newest first.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The webhook")),
    responses(
        (status = 200, description = "The deliveries", body = DeliveryList),
        (status = 404, description = "No such webhook of the caller", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/webhooks/{id}/deliveries")]
pub async fn list_webhook_deliveries(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<WebhookId>,
) -> Result<web::Json<DeliveryList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    let list = state
        .read_own(move |conn| webhooks::deliveries(conn, &auth.account_id, &id))
        .await?;
    Ok(web::Json(list))
}
