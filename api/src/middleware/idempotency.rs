//! `Idempotency-Key` on POSTs that change state: a request retried with the
//! same key and body gets the first answer again (its status, headers and
//! body) and changes nothing; the same key with another body is refused.
//! Keys are kept a day, per credential: a personal token, a sign-in (whose
//! access tokens follow each other as they are refreshed), or the client
//! address of requests without a token. A replay is authorised as a fresh
//! request would be: a token revoked or expired since gets no replay (its
//! request runs and is refused), and another credential of the account,
//! holding other scopes, has keys of its own.

use actix_web::{
    HttpResponse, ResponseError,
    body::{self, BoxBody, EitherBody, MessageBody},
    dev::{Payload, ServiceRequest, ServiceResponse},
    http::{
        Method, StatusCode,
        header::{CONTENT_LENGTH, CONTENT_TYPE, DATE, HeaderName, HeaderValue, TRANSFER_ENCODING},
    },
    middleware::Next,
    web::{self, Bytes},
};
use futures_util::StreamExt;

use crate::{
    auth::{bearer_credentials, verified_claims},
    clock::{MINUTE, Millis},
    credentials::{Claims, TokenKind, digest},
    db::DbConnection,
    error::{ApiError, Code},
    middleware::IMPORT_LIMIT,
    models::{idempotency, token},
    state::AppState,
};
/// How long a request with a key may run before the key is taken to be
/// abandoned (its instance died) and a retry may claim it again.
pub const IN_FLIGHT_LEASE: i64 = MINUTE;
const HEADER: &str = "idempotency-key";
const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// What becomes of a request with a key.
enum Claim {
    /// The first with this key: run it and keep its answer under `scope`.
    First { scope: String },
    /// Seen before with the same body: its answer.
    Replay {
        status: u16,
        content_type: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Sent with a token that is not live: run as if it had no key, to be
    /// refused as any request with that token is.
    Unbound,
}

/// Who sent a request, as its keys are kept.
enum Sender {
    Token(Claims),
    Address(String),
}

/// The credential whose keys a request's key is one of: its token's (a
/// sign-in's for a session), or its address's; `None` for a token that is
/// no longer live.
fn key_scope(
    conn: &mut DbConnection,
    sender: Sender,
    now: Millis,
) -> Result<Option<String>, ApiError> {
    let claims = match sender {
        Sender::Address(address) => return Ok(Some(format!("ip:{address}"))),
        Sender::Token(claims) => claims,
    };
    let Some(live) = token::find_live(conn, &claims.jti, now)? else {
        return Ok(None);
    };
    let record = live.token;
    if *record.account_id != *claims.sub {
        return Ok(None);
    }
    Ok(Some(credential_scope(&record)))
}

/// The scope of the keys sent with a token: its sign-in's for a session's
/// access token (refreshing it keeps the sign-in), its own for a personal
/// token.
pub fn credential_scope(record: &token::Token) -> String {
    match (record.kind, &record.family) {
        (TokenKind::Session, Some(family)) => format!("sign-in:{family}"),
        _ => format!("token:{}", record.id),
    }
}

/// Headers of an answer that its replay does not repeat: those of its
/// body's framing, and the one that says whether it is a replay.
fn kept_header(name: &HeaderName) -> bool {
    ![
        CONTENT_TYPE,
        CONTENT_LENGTH,
        TRANSFER_ENCODING,
        DATE,
        REPLAYED,
    ]
    .contains(name)
}

pub async fn idempotent<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B, BoxBody>>, actix_web::Error> {
    let key = req
        .headers()
        .get(HEADER)
        .map(|v| v.to_str().map(str::to_owned));
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let (Some(key), Some(state), true) = (key, state, req.method() == Method::POST) else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let refuse = |req: ServiceRequest, error: ApiError| {
        Ok(req
            .into_response(error.error_response())
            .map_into_right_body())
    };
    let key = match key {
        Ok(key) if (1..=255).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic()) => {
            key
        }
        _ => {
            let error = ApiError::invalid(
                Code::InvalidIdempotencyKey,
                "an Idempotency-Key has 1 to 255 visible ASCII characters",
            );
            return refuse(req, error);
        }
    };
    let sender = match verified_claims(req.headers(), &state) {
        Some(claims) => Sender::Token(claims),
        None if bearer_credentials(req.headers()).is_some() => {
            // A token that fails to verify: refused by the route as ever.
            return Ok(next.call(req).await?.map_into_left_body());
        }
        None => Sender::Address(state.client_address(req.peer_addr(), req.headers())),
    };

    // The body decides whether a retry is the same request.
    let (http, mut payload) = req.into_parts();
    let mut bytes = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk?;
        if bytes.len() + chunk.len() > IMPORT_LIMIT {
            let error =
                ApiError::PayloadTooLarge(format!("the body is larger than {IMPORT_LIMIT} bytes"));
            return refuse(ServiceRequest::from_parts(http, Payload::None), error);
        }
        bytes.extend_from_slice(&chunk);
    }
    let hash = digest(&format!(
        "{} {}\n{}",
        http.method(),
        http.uri(),
        String::from_utf8_lossy(&bytes)
    ));
    let req = ServiceRequest::from_parts(http, Payload::from(Bytes::from(bytes)));

    let now = state.clock.now();
    let (claim_key, claim_hash) = (key.clone(), hash.clone());
    let claim = state
        .write(move |conn, _| {
            let Some(scope) = key_scope(conn, sender, now)? else {
                return Ok(Claim::Unbound);
            };
            if idempotency::claim(conn, &scope, &claim_key, &claim_hash, now)? {
                return Ok(Claim::First { scope });
            }
            let Some(row) = idempotency::find(conn, &scope, &claim_key)? else {
                return Err(in_progress());
            };
            if row.request_hash != claim_hash {
                return Err(ApiError::invalid(
                    Code::IdempotencyKeyReused,
                    "this Idempotency-Key was used for another request",
                ));
            }
            if idempotency::take_over(conn, &row, now - IN_FLIGHT_LEASE, now)? {
                return Ok(Claim::First { scope });
            }
            let (Some(status), Some(content_type), Some(body)) =
                (row.status, row.content_type, row.body)
            else {
                return Err(in_progress());
            };
            let headers = match row.headers {
                Some(json) => serde_json::from_str(&json)
                    .map_err(|e| ApiError::Internal(format!("the headers kept for a key: {e}")))?,
                None => Vec::new(),
            };
            Ok(Claim::Replay {
                status: u16::try_from(status).unwrap_or(200),
                content_type,
                headers,
                body,
            })
        })
        .await;
    match claim {
        Err(error) => refuse(req, error),
        Ok(Claim::Unbound) => Ok(next.call(req).await?.map_into_left_body()),
        Ok(Claim::Replay {
            status,
            content_type,
            headers,
            body,
        }) => {
            let mut response =
                HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK));
            for (name, value) in headers {
                response.append_header((name, value));
            }
            let response = response
                .content_type(content_type)
                .insert_header((REPLAYED, "true"))
                .body(body);
            Ok(req.into_response(response).map_into_right_body())
        }
        Ok(Claim::First { scope }) => {
            let response = next.call(req).await?;
            let status = response.status();
            let content_type = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("application/octet-stream")
                .to_owned();
            let headers: Vec<(&str, &str)> = response
                .headers()
                .iter()
                .filter(|(name, _)| kept_header(name))
                .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?)))
                .collect();
            let headers =
                serde_json::to_string(&headers).map_err(|e| ApiError::Internal(e.to_string()))?;
            let (http, response) = response.into_parts();
            let (mut head, body) = response.into_parts();
            let bytes = body::to_bytes(body)
                .await
                .map_err(|e| ApiError::Internal(e.into().to_string()))?;
            let kept = bytes.clone();
            state
                .write(move |conn, _| {
                    // A server failure keeps nothing: the request may be retried.
                    if status.is_server_error() {
                        idempotency::release(conn, &scope, &key)?;
                    } else {
                        let answer = idempotency::Answer {
                            status: i32::from(status.as_u16()),
                            content_type: &content_type,
                            headers: &headers,
                            body: &kept,
                        };
                        idempotency::complete(conn, &scope, &key, answer)?;
                    }
                    Ok(())
                })
                .await?;
            head.headers_mut()
                .insert(REPLAYED, HeaderValue::from_static("false"));
            Ok(
                ServiceResponse::new(http, head.set_body(BoxBody::new(bytes)))
                    .map_into_right_body(),
            )
        }
    }
}

fn in_progress() -> ApiError {
    ApiError::Refused {
        code: Code::IdempotencyKeyInUse,
        detail: "a request with this Idempotency-Key is still running; if its server stopped, \
                 the key is free again a minute after it began"
            .to_owned(),
    }
}
