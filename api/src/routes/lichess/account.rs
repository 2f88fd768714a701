//! `GET /api/account`: the caller's profile.

use actix_web::{HttpRequest, HttpResponse, get, web};

use super::{Answer, base_url, caller};
use crate::{auth::Auth, domain::lichess, error::ApiError, state::AppState};

/// The caller's `UserExtended`: any token may read it, as on lichess.
#[get("/api/account")]
pub async fn get_account(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, None)?;
    let (now, base) = (state.clock.now(), base_url(&req));
    let account = state
        .db(move |conn| lichess::account(conn, &auth.username, &base, now))
        .await?;
    Ok(HttpResponse::Ok().json(account))
}
