//! `/api/challenge`: challenges to correspondence games of chess and
//! Chess960, made, shown, accepted, declined and cancelled.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Serialize;

use super::{Answer, CHALLENGING, LichessError, READING, base_url, caller, done};
use crate::{
    auth::Auth,
    domain::{challenge, lichess},
    error::{ApiError, Code},
    middleware::JSON_LIMIT,
    state::AppState,
    stored::ChallengeId,
    views::lichess::{Challenge, ChallengeRequest, DeclineRequest},
};

/// A body lichess takes as a form or as JSON, empty meaning no fields; one
/// larger than kingpost's JSON bodies may be is refused as lichess refuses
/// (`{"error"}`), not by the HTTP layer's plain text.
async fn read_body<T: serde::de::DeserializeOwned + Default>(
    req: &HttpRequest,
    payload: web::Payload,
) -> Result<T, LichessError> {
    let body = match payload.to_bytes_limited(JSON_LIMIT).await {
        Ok(Ok(body)) => body,
        Ok(Err(error)) => return Err(ApiError::MalformedRequest(error.to_string()).into()),
        Err(_) => {
            let detail = format!("the body is larger than {JSON_LIMIT} bytes");
            return Err(ApiError::PayloadTooLarge(detail).into());
        }
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let parsed = if crate::routes::json_body(req) {
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    } else {
        serde_urlencoded::from_bytes(&body).map_err(|e| e.to_string())
    };
    parsed.map_err(|e| ApiError::invalid(Code::InvalidBody, e).into())
}

/// `{"in": [...], "out": [...]}`: the open challenges to and by the caller.
#[derive(Debug, Serialize)]
struct ChallengeLists {
    #[serde(rename = "in")]
    incoming: Vec<Challenge>,
    #[serde(rename = "out")]
    outgoing: Vec<Challenge>,
}

/// The caller's open challenges, of the games lichess clients can play.
#[get("/api/challenge")]
pub async fn list(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, READING)?;
    let (now, base) = (state.clock.now(), base_url(&req));
    let lists = state
        .read_own(move |conn| {
            let list = challenge::list(conn, &auth.account_id)?;
            let mut shown = |views: &[crate::views::ChallengeView]| {
                let mut out = Vec::new();
                for view in views {
                    out.extend(lichess::challenge(conn, view, &auth.username, &base, now)?);
                }
                Ok::<_, ApiError>(out)
            };
            Ok(ChallengeLists {
                incoming: shown(&list.incoming)?,
                outgoing: shown(&list.outgoing)?,
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(lists))
}

/// One challenge as the caller sees it; a challenge to one of kingpost's
/// own variants is refused.
async fn shown(
    state: &web::Data<AppState>,
    auth: &Auth,
    req: &HttpRequest,
    id: ChallengeId,
) -> Result<Challenge, LichessError> {
    let (now, base, me) = (state.clock.now(), base_url(req), auth.username.clone());
    let account = auth.account_id.clone();
    let found = state
        .read_own(move |conn| {
            let view = challenge::view(conn, &account, &id)?;
            let shown = lichess::challenge(conn, &view, &me, &base, now)?;
            shown.ok_or_else(|| lichess::not_playable_here(view.rules.0, &view.variant))
        })
        .await?;
    Ok(found)
}

/// Challenge `username` to a correspondence game: `days` (1, 2, 3, 5, 7,
/// 10 or 14) is required, real-time clocks are refused; `variant` is
/// `standard`, `chess960` or `fromPosition` (with `fen`).
#[post("/api/challenge/{username}")]
pub async fn create(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    username: web::Path<String>,
    req: HttpRequest,
    body: web::Payload,
) -> Answer {
    let auth = caller(auth, CHALLENGING)?;
    let request = read_body::<ChallengeRequest>(&req, body).await?;
    let request = lichess::challenge_request(request, &username)?;
    let now = state.clock.now();
    let account = auth.account_id.clone();
    let id = state
        .write(move |conn, outbox| challenge::create(conn, outbox, now, &account, &request))
        .await?;
    Ok(HttpResponse::Ok().json(shown(&state, &auth, &req, id).await?))
}

/// One challenge.
#[get("/api/challenge/{id}/show")]
pub async fn show(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<ChallengeId>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, READING)?;
    Ok(HttpResponse::Ok().json(shown(&state, &auth, &req, id.into_inner()).await?))
}

/// Accept a challenge: the game starts, and both players' event streams
/// tell of it (`gameStart`).
#[post("/api/challenge/{id}/accept")]
pub async fn accept(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<ChallengeId>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, CHALLENGING)?;
    let id = id.into_inner();
    // Refused before accepting: a lichess client must not start a game it
    // cannot play.
    shown(&state, &auth, &req, id.clone()).await?;
    let now = state.clock.now();
    state
        .write(move |conn, outbox| challenge::accept(conn, outbox, now, &id, &auth.account_id))
        .await?;
    Ok(done())
}

/// Decline a challenge addressed to the caller (`reason` is read and
/// dropped: kingpost keeps no reasons).
#[post("/api/challenge/{id}/decline")]
pub async fn decline(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<ChallengeId>,
    req: HttpRequest,
    body: web::Payload,
) -> Answer {
    let auth = caller(auth, CHALLENGING)?;
    read_body::<DeclineRequest>(&req, body).await?;
    let now = state.clock.now();
    let id = id.into_inner();
    state
        .write(move |conn, outbox| challenge::decline(conn, outbox, now, &id, &auth.account_id))
        .await?;
    Ok(done())
}

/// Cancel the caller's own challenge.
#[post("/api/challenge/{id}/cancel")]
pub async fn cancel(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    id: web::Path<ChallengeId>,
) -> Answer {
    let auth = caller(auth, CHALLENGING)?;
    let now = state.clock.now();
    let id = id.into_inner();
    state
        .write(move |conn, outbox| challenge::cancel(conn, outbox, now, &id, &auth.account_id))
        .await?;
    Ok(done())
}
