//! `/api/v1/account/notifications`: which events reach the caller by
//! e-mail, and when; `/api/v1/notifications/unsubscribe`: the one-click
//! link (RFC 8058) every notification mail carries.

use actix_web::{HttpResponse, get, post, put, web};

use crate::{
    auth::Auth,
    domain::{notices, notifications},
    error::{ApiError, Code, Problem},
    routes::Query,
    state::AppState,
    views::{HtmlPage, NotificationSettingsRequest, NotificationSettingsView, UnsubscribeQuery},
};

/// The caller's notification settings (the defaults until changed).
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The settings", body = NotificationSettingsView),
    ),
    security(("bearer" = []))
)]
#[get("/account/notifications")]
pub async fn get_notification_settings(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<NotificationSettingsView>, ApiError> {
    let now = state.clock.now();
    let shown = state
        .read_own(move |conn| notifications::settings(conn, &auth.account_id, now))
        .await?;
    Ok(web::Json(shown))
}

/// Change which events are mailed and when: each at once (ten an hour at
/// most; past them, one digest at the hour's end) or a daily digest at an
/// hour of a time zone. Fields left out keep their value. Mail goes only to
/// a verified address.
#[utoipa::path(
    tag = "accounts",
    request_body = NotificationSettingsRequest,
    responses(
        (status = 200, description = "The settings as they now stand", body = NotificationSettingsView),
        (status = 403, description = "A personal token, not a signed-in session (`forbidden`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An hour past 23 or an unknown time zone (`invalid_notification_settings`), or an unknown event type (`invalid_body`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["session"]))
)]
#[put("/account/notifications")]
pub async fn change_notification_settings(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<NotificationSettingsRequest>,
) -> Result<web::Json<NotificationSettingsView>, ApiError> {
    auth.require_session()?;
    let now = state.clock.now();
    let request = body.into_inner();
    let shown = state
        .write(move |conn, _| notifications::change(conn, &auth.account_id, request, now))
        .await?;
    Ok(web::Json(shown))
}

/// The page an unsubscribe link opens in a browser: a button that
/// unsubscribes (a GET changes nothing, so that the scanners that follow
/// links in mail unsubscribe nobody).
#[utoipa::path(
    tag = "accounts",
    params(UnsubscribeQuery),
    responses(
        (status = 200, description = "A page with the button", body = HtmlPage, content_type = "text/html"),
        (status = 422, description = "Not a link this server sent (`invalid_token`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/notifications/unsubscribe")]
pub async fn get_unsubscribe_page(
    state: web::Data<AppState>,
    query: Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    let token = &query.into_inner().token;
    if notices::unsubscribing(&state.keys, token).is_none() {
        return Err(not_ours());
    }
    let action = format!("unsubscribe?token={}", notices::escape(token));
    Ok(page(&format!(
        "<h1>No more notification mails?</h1><p>kingpost will send no more mails about your \
         games to this address. You can turn them on again in your account's settings.</p>\
         <form method=\"post\" action=\"{action}\"><input type=\"hidden\" \
         name=\"List-Unsubscribe\" value=\"One-Click\"><button>Unsubscribe</button></form>"
    )))
}

/// Unsubscribe from notification mails in one click (RFC 8058: a mail
/// client `POST`s `List-Unsubscribe=One-Click` to the link): the account's
/// e-mailed events become none. The link needs no sign-in; only this
/// server can make one.
#[utoipa::path(
    tag = "accounts",
    params(UnsubscribeQuery),
    responses(
        (status = 200, description = "Unsubscribed: a page saying so", body = HtmlPage, content_type = "text/html"),
        (status = 422, description = "Not a link this server sent (`invalid_token`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/notifications/unsubscribe")]
pub async fn unsubscribe_notifications(
    state: web::Data<AppState>,
    query: Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    let token = query.into_inner().token;
    let now = state.clock.now();
    let keys = state.clone();
    state
        .write(move |conn, _| notifications::unsubscribe(conn, &keys.keys, &token, now))
        .await?;
    Ok(page(
        "<h1>Unsubscribed</h1><p>No more notification mails will reach you. You can turn them \
         on again in your account's settings.</p>",
    ))
}

fn not_ours() -> ApiError {
    ApiError::invalid(Code::InvalidToken, "the link is not one this server sent")
}

fn page(body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(format!(
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" \
             content=\"width=device-width\"><title>kingpost</title><body style=\"font-family:\
             sans-serif;max-width:32em;margin:3em auto;padding:0 1em\">{body}</body></html>"
        ))
}
