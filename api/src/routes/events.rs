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
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::{
    app::AppState,
    auth::{Auth, Scope},
    domain::{
        events::{self, EventView},
        webhooks::{self, CreateWebhookRequest, DeliveryView, WebhookView},
    },
    error::{ApiError, Problem},
    models::{event, token},
    notify::{account_signal, wait_for},
    views::EventStreamText,
};

/// Seconds between two keep-alive lines of an idle stream.
pub const KEEPALIVE_SECONDS: u64 = 15;
/// Events sent in one go at most.
const BATCH: i64 = 100;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// Resume after this event id (as `Last-Event-ID` does); without either,
    /// the stream starts with the next event.
    pub since: Option<i64>,
}

/// How the stream is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Ndjson,
    ServerSentEvents,
}

fn write_events(format: Format, events: &[EventView]) -> String {
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
#[utoipa::path(
    tag = "events",
    params(StreamQuery, ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this event id")),
    responses(
        (status = 200, description = "The events, one a line (or SSE records)", content(
            (EventView = "application/x-ndjson"),
            (EventStreamText = "text/event-stream"),
        )),
        (status = 401, description = "Not authenticated", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/stream/events")]
pub async fn stream_events(
    state: web::Data<AppState>,
    auth: Auth,
    query: web::Query<StreamQuery>,
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
        .map_err(|_| ApiError::invalid("invalid_query", "Last-Event-ID is an event id"))?
        .or(query.since);
    // Subscribe before reading, so that nothing falls between the two.
    let receiver = state.hub.subscribe();
    let account = auth.account_id.clone();
    let after = match resume {
        Some(id) => id,
        None => {
            let me = account.clone();
            state.db(move |conn| Ok(event::last_id(conn, &me)?)).await?
        }
    };
    let signal = account_signal(&account);
    let keepalive = match format {
        Format::Ndjson => "\n",
        Format::ServerSentEvents => ": keep-alive\n\n",
    };
    let (token_id, expires_at) = (auth.token_id.clone(), auth.expires_at);
    let body = stream::unfold((after, receiver), move |(after, mut receiver)| {
        let (state, account, signal) = (state.clone(), account.clone(), signal.clone());
        let token_id = token_id.clone();
        async move {
            let me = account.clone();
            let now = state.clock.now();
            // The stream lasts as long as its token: revoked or expired, it ends.
            let pending = state
                .db(move |conn| {
                    if token::find_live(conn, &token_id, now)?.is_none() {
                        return Ok(None);
                    }
                    events::since(conn, &me, after, BATCH).map(Some)
                })
                .await;
            match pending {
                Err(error) => Some((Err(actix_web::Error::from(error)), (after, receiver))),
                Ok(None) => None,
                Ok(Some(events)) if !events.is_empty() => {
                    let last = events.last().map_or(after, |e| e.id);
                    Some((
                        Ok(Bytes::from(write_events(format, &events))),
                        (last, receiver),
                    ))
                }
                Ok(Some(_)) => {
                    let until_expiry = u64::try_from(expires_at - now).unwrap_or(0);
                    let wait = Duration::from_secs(KEEPALIVE_SECONDS)
                        .min(Duration::from_millis(until_expiry));
                    let woken = wait_for(&mut receiver, &signal, wait).await;
                    let chunk = if woken {
                        Bytes::new()
                    } else {
                        Bytes::from_static(keepalive.as_bytes())
                    };
                    Some((Ok(chunk), (after, receiver)))
                }
            }
        }
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

/// The caller's webhooks.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<WebhookView>,
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
        (status = 401, description = "Not authenticated", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
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
        .db(move |conn| webhooks::create(conn, now, &auth.account_id, request, allow_private))
        .await?;
    Ok(HttpResponse::Created().json(view))
}

/// The caller's webhooks.
#[utoipa::path(
    tag = "events",
    responses(
        (status = 200, description = "The webhooks", body = WebhookList),
        (status = 401, description = "Not authenticated", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/webhooks")]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<WebhookList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let rows = state
        .db(move |conn| Ok(event::webhooks_of(conn, &auth.account_id)?))
        .await?;
    Ok(web::Json(WebhookList {
        webhooks: rows.into_iter().map(WebhookView::from).collect(),
    }))
}

/// Remove a webhook and its pending deliveries.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The webhook")),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Not authenticated", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook of the caller", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[delete("/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    state
        .db(move |conn| {
            webhooks::owned(conn, &auth.account_id, &id)?;
            Ok(event::delete_webhook(conn, &id)?)
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A webhook's deliveries.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryList {
    /// The newest 100.
    pub deliveries: Vec<DeliveryView>,
}

/// The delivery log of a webhook, newest first.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The webhook")),
    responses(
        (status = 200, description = "The deliveries", body = DeliveryList),
        (status = 401, description = "Not authenticated", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook of the caller", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The token lacks `game:read`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]))
)]
#[get("/webhooks/{id}/deliveries")]
pub async fn list_webhook_deliveries(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<String>,
) -> Result<web::Json<DeliveryList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    let rows = state
        .db(move |conn| {
            webhooks::owned(conn, &auth.account_id, &id)?;
            Ok(event::deliveries_of(conn, &id, 100)?)
        })
        .await?;
    Ok(web::Json(DeliveryList {
        deliveries: rows.into_iter().map(DeliveryView::from).collect(),
    }))
}
