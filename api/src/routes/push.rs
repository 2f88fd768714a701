//! `/api/v1/push/public-key` and `/api/v1/push-subscriptions`: the browsers
//! that receive the caller's notifications by Web Push.

use actix_web::{HttpResponse, delete, get, post, web};

use crate::{
    auth::Auth,
    domain::push,
    error::{ApiError, Problem},
    state::AppState,
    views::{PushKeyView, PushSubscriptionList, PushSubscriptionRequest, PushSubscriptionView},
};

/// The server's VAPID public key: what a browser subscribes with
/// (`pushManager.subscribe({applicationServerKey})`).
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The key", body = PushKeyView),
        (status = 409, description = "This server sends no Web Push (`push_off`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/push/public-key")]
pub async fn get_push_public_key(
    state: web::Data<AppState>,
) -> Result<web::Json<PushKeyView>, ApiError> {
    let pusher = state.pusher.as_ref().ok_or_else(push::off)?;
    Ok(web::Json(PushKeyView {
        public_key: pusher.public_key(),
    }))
}

/// Receive the notifications chosen for push in this browser: the body is
/// its `PushSubscription` as `toJSON()` gives it. At most ten browsers an
/// account; the same endpoint again replaces the old subscription.
#[utoipa::path(
    tag = "accounts",
    request_body = PushSubscriptionRequest,
    responses(
        (status = 201, description = "Subscribed", body = PushSubscriptionView),
        (status = 409, description = "This server sends no Web Push (`push_off`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An endpoint, key or secret the server cannot use (`invalid_subscription`), or ten browsers already (`too_many_subscriptions`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/push-subscriptions")]
pub async fn create_push_subscription(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<PushSubscriptionRequest>,
) -> Result<HttpResponse, ApiError> {
    state.pusher.as_ref().ok_or_else(push::off)?;
    let now = state.clock.now();
    let allow_private = state.allow_private_webhooks;
    let request = body.into_inner();
    let view = state
        .write(move |conn, _| push::subscribe(conn, &auth.account_id, request, allow_private, now))
        .await?;
    Ok(HttpResponse::Created().json(view))
}

/// The browsers that receive the caller's notifications.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The subscriptions, oldest first", body = PushSubscriptionList),
    ),
    security(("bearer" = []))
)]
#[get("/push-subscriptions")]
pub async fn list_push_subscriptions(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<PushSubscriptionList>, ApiError> {
    let list = state
        .read_own(move |conn| push::list(conn, &auth.account_id))
        .await?;
    Ok(web::Json(list))
}

/// Stop pushing to a browser.
#[utoipa::path(
    tag = "accounts",
    params(("id" = String, Path, description = "The subscription")),
    responses(
        (status = 204, description = "Removed, with its pending pushes"),
        (status = 404, description = "No such subscription of the caller", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[delete("/push-subscriptions/{id}")]
pub async fn delete_push_subscription(
    state: web::Data<AppState>,
    auth: Auth,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    state
        .write(move |conn, _| push::unsubscribe(conn, &auth.account_id, &id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
