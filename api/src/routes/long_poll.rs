//! Long polls: a read answered with its `ETag`, and with `wait` held while
//! the client's `If-None-Match` still names what it would answer, until a
//! change is signalled or the wait ends (`304`).

use std::{
    future::Future,
    time::{Duration, Instant},
};

use actix_web::{
    HttpRequest, HttpResponse,
    http::header::{ETAG, IF_NONE_MATCH},
};
use serde::Serialize;

use crate::{
    budgets::PeerSocket,
    error::{ApiError, Code},
    notify::Signal,
    state::AppState,
    stored::AccountId,
};

/// The longest a long poll waits.
pub const MAX_WAIT_SECONDS: u64 = 60;

/// Answers what `read` reads (a body and its entity tag). With `wait`
/// seconds and a current `If-None-Match`, first holds the request, taking
/// a place among the held ones of `account`, until `signal` fires and the
/// read differs, or the wait ends (`304`). The watch begins before the
/// first read, so that no change falls between the two.
pub async fn answer_when_changed<T, F, Fut>(
    state: &AppState,
    req: &HttpRequest,
    account: &AccountId,
    wait: Option<u64>,
    signal: &Signal,
    mut read: F,
) -> Result<HttpResponse, ApiError>
where
    T: Serialize,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(T, String), ApiError>>,
{
    let wait = wait.unwrap_or(0);
    if wait > MAX_WAIT_SECONDS {
        return Err(ApiError::invalid(
            Code::InvalidQuery,
            format!("wait is at most {MAX_WAIT_SECONDS} seconds"),
        ));
    }
    // A long poll holds its connection: it takes a place among the held.
    let slot = if wait > 0 {
        let address = state.client_address(req.peer_addr(), req.headers());
        let socket = req.conn_data::<PeerSocket>().copied();
        Some(state.held.acquire(account, &address, socket)?)
    } else {
        None
    };
    let mut watch = state.hub.watch(signal);
    let deadline = Instant::now() + Duration::from_secs(wait);
    loop {
        // Boxed: the read's state is then no part of the poll's future, which
        // stays small for as long as it is held.
        let (body, etag) = Box::pin(read()).await?;
        if !if_none_match(req, &etag) {
            return Ok(HttpResponse::Ok().insert_header((ETAG, etag)).json(body));
        }
        // Not kept while waiting: a held poll holds as little as it can.
        drop(body);
        let left = deadline.saturating_duration_since(Instant::now());
        let changed = match (&slot, left.is_zero()) {
            (_, true) => false,
            // A client found gone is answered as at the deadline: nobody
            // reads it.
            (Some(slot), false) => slot.unless_gone(watch.changed(left)).await == Some(true),
            (None, false) => watch.changed(left).await,
        };
        if !changed {
            return Ok(HttpResponse::NotModified()
                .insert_header((ETAG, etag))
                .finish());
        }
    }
}

/// An entity tag for `body`: a hash of its JSON, the same on every
/// instance of one build.
pub fn etag_of(body: &impl Serialize) -> String {
    use std::hash::{DefaultHasher, Hasher};
    let mut hasher = DefaultHasher::new();
    hasher.write(&serde_json::to_vec(body).unwrap_or_default());
    format!("\"{:016x}\"", hasher.finish())
}

/// Whether `If-None-Match` names `etag`, by the weak comparison RFC 9110
/// (13.1.2) asks for: `W/"x"` matches `"x"`, as proxies that compress
/// answers weaken the tags they pass on.
fn if_none_match(req: &HttpRequest, etag: &str) -> bool {
    let strip = |tag: &str| {
        tag.trim()
            .strip_prefix("W/")
            .unwrap_or(tag.trim())
            .to_owned()
    };
    let ours = strip(etag);
    req.headers()
        .get(IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(',')
                .any(|tag| tag.trim() == "*" || strip(tag) == ours)
        })
}
