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
use tokio::sync::broadcast;
use utoipa::IntoParams;

use crate::{
    auth::Auth,
    budgets::HeldSlot,
    clock::Millis,
    credentials::Scope,
    domain::{events, session, webhooks},
    error::{ApiError, Code, Problem},
    feeds::{self, FeedItem},
    state::AppState,
    stored::AccountId,
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

/// What a followed account has next.
#[derive(Debug)]
pub enum Next {
    /// New events, in order (maybe none, after a read of the log).
    Events(Vec<EventView>),
    /// Nothing for a keep-alive's while.
    Idle,
}

/// An account's events followed by a held request: where it is in the
/// account's events, the feed it hears new ones from, and its place among
/// the held requests. It ends when its token expires or is revoked.
#[derive(Debug)]
pub struct Follower {
    state: web::Data<AppState>,
    account: AccountId,
    token_id: String,
    expires_at: Millis,
    /// The last event yielded.
    after: i64,
    /// Whether what was missed before following began has been yielded.
    caught_up: bool,
    keepalive: Duration,
    feed: broadcast::Receiver<FeedItem>,
    _slot: HeldSlot,
}

impl Follower {
    /// Follows the caller's events after `resume`, or from now on; idle
    /// every `keepalive`. Takes a place among the held requests.
    pub async fn start(
        state: &web::Data<AppState>,
        auth: &Auth,
        req: &HttpRequest,
        resume: Option<i64>,
        keepalive: Duration,
    ) -> Result<Follower, ApiError> {
        let address = state.client_address(req.peer_addr(), req.headers());
        let slot = state.held.acquire(&auth.account_id, &address)?;
        // Listening before reading, so that nothing falls between the two.
        let feed = state
            .feeds
            .listen(&state.hub, &state.pool, &auth.account_id);
        let account = auth.account_id.clone();
        let after = match resume {
            Some(id) => id,
            None => {
                let me = account.clone();
                state.db(move |conn| events::last_id(conn, &me)).await?
            }
        };
        Ok(Follower {
            state: state.clone(),
            account,
            token_id: auth.token_id.clone(),
            expires_at: auth.expires_at,
            after,
            caught_up: false,
            keepalive,
            feed,
            _slot: slot,
        })
    }

    /// Whether every event logged before the last read has been yielded.
    pub fn caught_up(&self) -> bool {
        self.caught_up
    }

    /// What comes next, or `None` when following ends: the token expired
    /// or was revoked.
    pub async fn next(&mut self) -> Option<Result<Next, ApiError>> {
        loop {
            let now = self.state.clock.now();
            if now >= self.expires_at {
                return None;
            }
            if !self.caught_up {
                // Boxed, as the token check below: a held stream's future
                // keeps no room for the reads it makes now and then.
                return Some(Box::pin(self.read_missed()).await);
            }
            let until_expiry =
                Duration::from_millis(u64::try_from(self.expires_at - now).unwrap_or(0));
            let wait = self.keepalive.min(until_expiry);
            match actix_web::rt::time::timeout(wait, self.feed.recv()).await {
                Err(_) => return Some(Ok(Next::Idle)),
                Ok(Ok(FeedItem::Events(events))) => {
                    let fresh: Vec<EventView> = events
                        .iter()
                        .filter(|e| e.id > self.after)
                        .cloned()
                        .collect();
                    if let Some(last) = fresh.last() {
                        self.after = last.id;
                        return Some(Ok(Next::Events(fresh)));
                    }
                }
                Ok(Ok(FeedItem::TokensChanged)) => {
                    if !Box::pin(self.token_is_live()).await {
                        return None;
                    }
                }
                // Fell behind the feed: read from the log what was missed.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => self.caught_up = false,
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            }
        }
    }

    /// Whether the token is unexpired and unrevoked, looking only at what
    /// the feed told since the last look: for a held request that waits on
    /// something else and ignores the events.
    pub async fn still_authorised(&mut self) -> bool {
        if self.state.clock.now() >= self.expires_at {
            return false;
        }
        let mut tokens_changed = false;
        loop {
            match self.feed.try_recv() {
                Ok(FeedItem::TokensChanged) | Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    tokens_changed = true
                }
                Ok(FeedItem::Events(_)) => {}
                Err(broadcast::error::TryRecvError::Empty) => break,
                Err(broadcast::error::TryRecvError::Closed) => return false,
            }
        }
        !tokens_changed || Box::pin(self.token_is_live()).await
    }

    async fn token_is_live(&self) -> bool {
        let (token_id, now) = (self.token_id.clone(), self.state.clock.now());
        let live = self
            .state
            .db(move |conn| session::is_live(conn, &token_id, now))
            .await;
        matches!(live, Ok(true))
    }

    /// The next batch of what came after the last event yielded, from the
    /// log; caught up once a batch is not full.
    async fn read_missed(&mut self) -> Result<Next, ApiError> {
        let (account, after) = (self.account.clone(), self.after);
        let events = self
            .state
            .db(move |conn| events::since(conn, &account, after, feeds::BATCH))
            .await?;
        self.caught_up = (events.len() as i64) < feeds::BATCH;
        self.after = events.last().map_or(self.after, |e| e.id);
        Ok(Next::Events(events))
    }
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
        .db(move |conn| webhooks::create(conn, now, &auth.account_id, request, allow_private))
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
        .db(move |conn| webhooks::list(conn, &auth.account_id))
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
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    state
        .db(move |conn| webhooks::delete(conn, &auth.account_id, &id))
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
    id: web::Path<String>,
) -> Result<web::Json<DeliveryList>, ApiError> {
    auth.require(Scope::GameRead)?;
    let id = id.into_inner();
    let list = state
        .db(move |conn| webhooks::deliveries(conn, &auth.account_id, &id))
        .await?;
    Ok(web::Json(list))
}
