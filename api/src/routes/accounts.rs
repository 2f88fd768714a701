//! `/api/v1/accounts` and `/api/v1/account`.

use actix_web::{HttpRequest, HttpResponse, delete, get, http::header, post, put, web};

use crate::{
    auth::Auth,
    deletions,
    domain::{
        account_deletion, accounts, mail, recovery,
        vacation::{self},
    },
    error::{ApiError, Code, Problem},
    middleware::limits::FailedSignIns,
    models::account::Account,
    passwords,
    secret::Secret,
    state::AppState,
    views::{
        AccountView, ChangePasswordRequest, CreateAccountRequest, DeleteAccountRequest, EmailView,
        ForgotPasswordRequest, ResetPasswordRequest, SetEmailRequest, VacationView,
        VerifyEmailRequest,
    },
};

/// Register an account.
#[utoipa::path(
    tag = "accounts",
    request_body = CreateAccountRequest,
    responses(
        (status = 201, description = "The account", body = AccountView),
        (status = 409, description = "The username is taken", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid username or password", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/accounts")]
pub async fn create_account(
    state: web::Data<AppState>,
    body: web::Json<CreateAccountRequest>,
) -> Result<HttpResponse, ApiError> {
    let CreateAccountRequest { username, password } = body.into_inner();
    accounts::check_username(&username)?;
    accounts::check_password(&username, password.expose())?;
    let now = state.clock.now();
    // Hashed before a connection is taken: the slow part holds none.
    let password_hash = passwords::hash(password).await?;
    let created = state
        .write(move |conn, _| accounts::create(conn, username, password_hash, now))
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, "/api/v1/account"))
        .json(AccountView::from(created)))
}

/// Change the password, from a signed-in session: every other sign-in of
/// the account (its sessions and refresh tokens, on any device) is signed
/// out; this one and the personal tokens stay. Wrong current passwords count
/// against the username's failed sign-ins, as at sign-in.
#[utoipa::path(
    tag = "accounts",
    request_body = ChangePasswordRequest,
    responses(
        (status = 204, description = "Changed; the other sign-ins are signed out"),
        (status = 403, description = "A personal token, not a signed-in session (`forbidden`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The current password is wrong (`wrong_password`), or the new one is not one an account may have (`invalid_password`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this username from this address (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["session"]))
)]
#[put("/account/password")]
pub async fn change_password(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<ChangePasswordRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let ChangePasswordRequest {
        current_password,
        new_password,
    } = body.into_inner();
    confirm_password(&state, &auth, current_password, &req).await?;
    accounts::check_password(&auth.username, new_password.expose())?;
    let new_hash = passwords::hash(new_password).await?;
    let now = state.clock.now();
    state
        .write(move |conn, outbox| {
            accounts::change_password(
                conn,
                outbox,
                &auth.account_id,
                &auth.token_id,
                &new_hash,
                now,
            )
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Checks that a signed-in session (not a personal token) sends the
/// account's password: what changing or deleting the account asks. Wrong
/// passwords count against the username's failed sign-ins, as at sign-in.
async fn confirm_password(
    state: &AppState,
    auth: &Auth,
    password: Secret,
    req: &HttpRequest,
) -> Result<(), ApiError> {
    auth.require_session()?;
    let failures = FailedSignIns::check(state, &auth.username, req)?;
    let id = auth.account_id.clone();
    let account = state
        .read_own(move |conn| accounts::find(conn, &id))
        .await?;
    if !passwords::verify(password, account.password_hash).await? {
        failures.spend();
        // Not a 401: the session is good, and a client signs out on a 401.
        return Err(ApiError::invalid(
            Code::WrongPassword,
            "the password is not this account's",
        ));
    }
    Ok(())
}

/// Delete the account, from a signed-in session with its password. Its
/// games under way are aborted (before both sides have moved, outside
/// tournaments) or resigned; its tournaments are left and its challenges
/// withdrawn or declined; its collections, tokens, e-mail address,
/// notification settings, push subscriptions, webhooks, mutes, notes and
/// ratings are deleted. The games it played stay with their opponents,
/// with their messages, under the name `[deleted]`; the username is free
/// again. There is no undoing it.
#[utoipa::path(
    tag = "accounts",
    request_body = DeleteAccountRequest,
    responses(
        (status = 204, description = "Deleted: every sign-in and token of the account is gone"),
        (status = 403, description = "A personal token, not a signed-in session (`forbidden`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The password is wrong (`wrong_password`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many wrong passwords for this username from this address (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["session"]))
)]
#[delete("/account")]
pub async fn delete_account(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<DeleteAccountRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    confirm_password(&state, &auth, body.into_inner().password, &req).await?;
    let now = state.clock.now();
    let id = auth.account_id.clone();
    state
        .write(move |conn, outbox| account_deletion::delete(conn, outbox, &id, now))
        .await?;
    // The account is gone once the change above is made, and the answer
    // says so whatever follows: should the rest fail or stop midway, the
    // sweep carries it on.
    if let Err(error) = deletions::finish(&state, &auth.account_id).await {
        tracing::warn!(%error, "an account deletion is left to the sweep");
    }
    Ok(HttpResponse::NoContent().finish())
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The account", body = AccountView),
    ),
    security(("bearer" = []))
)]
#[get("/account")]
pub async fn get_account(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<AccountView>, ApiError> {
    let account = state
        .read_own(move |conn| accounts::find(conn, &auth.account_id))
        .await?;
    Ok(web::Json(account.into()))
}

/// Runs `change` on the caller's vacation and answers its state.
async fn vacation_change(
    state: web::Data<AppState>,
    auth: Auth,
    change: fn(&mut crate::db::DbConnection, Account, i64) -> Result<Account, ApiError>,
) -> Result<web::Json<VacationView>, ApiError> {
    let now = state.clock.now();
    let view = state
        .write(move |conn, outbox| vacation::change(conn, outbox, &auth.account_id, change, now))
        .await?;
    Ok(web::Json(view))
}

/// The caller's vacation: 30 days a year, earned 2.5 days a month, kept up
/// to 30. While on vacation, the caller's clocks stand still.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The vacation balance and state", body = VacationView),
    ),
    security(("bearer" = []))
)]
#[get("/account/vacation")]
pub async fn get_vacation(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<VacationView>, ApiError> {
    vacation_change(state, auth, |conn, account, now| {
        vacation::settle(conn, account, now, false)
    })
    .await
}

/// Start a vacation: it lasts until ended or until the balance is spent.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The vacation under way", body = VacationView),
        (status = 422, description = "Already on vacation (`already_on_vacation`) or none left (`no_vacation_left`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:play"]))
)]
#[post("/account/vacation")]
pub async fn start_vacation(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<VacationView>, ApiError> {
    auth.require(crate::credentials::Scope::GamePlay)?;
    vacation_change(state, auth, vacation::start).await
}

/// End the vacation under way: the deadlines it held move on by its length.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The vacation ended", body = VacationView),
    ),
    security(("bearer" = ["game:play"]))
)]
#[delete("/account/vacation")]
pub async fn end_vacation(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<VacationView>, ApiError> {
    auth.require(crate::credentials::Scope::GamePlay)?;
    vacation_change(state, auth, |conn, account, now| {
        vacation::settle(conn, account, now, true)
    })
    .await
}

/// The caller's e-mail address, and whether it is verified.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The address (none yet: `null`)", body = EmailView),
    ),
    security(("bearer" = []))
)]
#[get("/account/email")]
pub async fn get_email(
    state: web::Data<AppState>,
    auth: Auth,
) -> Result<web::Json<EmailView>, ApiError> {
    let shown = state
        .read_own(move |conn| mail::address(conn, &auth.account_id))
        .await?;
    Ok(web::Json(shown))
}

/// Give the address mail goes to (or another one): a mail with a link goes
/// to it, and nothing else does until the link is followed (within a day).
/// At most five such mails an hour to one address, ten from one account.
#[utoipa::path(
    tag = "accounts",
    request_body = SetEmailRequest,
    responses(
        (status = 202, description = "The address, unverified: the link is on its way", body = EmailView),
        (status = 403, description = "A personal token, not a signed-in session (`forbidden`)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "This server sends no e-mail (`email_off`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not an e-mail address (`invalid_email`)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Five verification mails to this address, or ten from this account, in the last hour (`rate_limited`)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["session"]))
)]
#[put("/account/email")]
pub async fn set_email(
    state: web::Data<AppState>,
    auth: Auth,
    body: web::Json<SetEmailRequest>,
) -> Result<HttpResponse, ApiError> {
    auth.require_session()?;
    let mailer = state.mailer.clone().ok_or_else(mail::off)?;
    let now = state.clock.now();
    let address = body.into_inner().address;
    let view = state
        .write(move |conn, _| {
            mail::set_address(
                conn,
                &mailer,
                &auth.account_id,
                &auth.username,
                &address,
                now,
            )
        })
        .await?;
    Ok(HttpResponse::Accepted().json(view))
}

/// Follow a verification link: the token it carries verifies the address
/// it was sent to. Once, within a day; a used, late or unknown token is
/// refused alike.
#[utoipa::path(
    tag = "accounts",
    request_body = VerifyEmailRequest,
    responses(
        (status = 204, description = "The address is verified"),
        (status = 422, description = "The link is used, expired or unknown (`invalid_token`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/account/email/verify")]
pub async fn verify_email(
    state: web::Data<AppState>,
    body: web::Json<VerifyEmailRequest>,
) -> Result<HttpResponse, ApiError> {
    let now = state.clock.now();
    let token = body.into_inner().token;
    state
        .write(move |conn, _| mail::verify(conn, &token, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Forgot the password: give the username or the e-mail address, and a
/// link to choose a new one goes to the account's verified address (it
/// serves once, within an hour; three an hour at most). The answer is the
/// same whether or not an account or an address was found.
#[utoipa::path(
    tag = "accounts",
    request_body = ForgotPasswordRequest,
    responses(
        (status = 202, description = "If an account with a verified address matches, a link is on its way"),
        (status = 409, description = "This server sends no e-mail (`email_off`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/account/password-reset")]
pub async fn forgot_password(
    state: web::Data<AppState>,
    body: web::Json<ForgotPasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let mailer = state.mailer.clone().ok_or_else(mail::off)?;
    let now = state.clock.now();
    let login = body.into_inner().login;
    state
        .write(move |conn, _| recovery::ask(conn, &mailer, &login, now))
        .await?;
    Ok(HttpResponse::Accepted().finish())
}

/// Choose a new password with the token of a reset link: every sign-in of
/// the account is signed out (its personal tokens stay). A used, late or
/// unknown token is refused alike.
#[utoipa::path(
    tag = "accounts",
    request_body = ResetPasswordRequest,
    responses(
        (status = 204, description = "The password is changed: sign in with it"),
        (status = 422, description = "The link is used, expired or unknown (`invalid_token`), or the password is not one an account may have (`invalid_password`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/account/password-reset/confirm")]
pub async fn reset_password(
    state: web::Data<AppState>,
    body: web::Json<ResetPasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let ResetPasswordRequest {
        token,
        new_password,
    } = body.into_inner();
    let now = state.clock.now();
    let peeked = token.clone();
    let username = state
        .read_own(move |conn| recovery::username_for(conn, &peeked, now))
        .await?;
    accounts::check_password(&username, new_password.expose())?;
    let new_hash = passwords::hash(new_password).await?;
    state
        .write(move |conn, outbox| recovery::reset(conn, outbox, &token, &new_hash, now))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
