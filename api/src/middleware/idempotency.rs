//! `Idempotency-Key` on POSTs that change state: a request retried with the
//! same key and body gets the first answer again and changes nothing; the
//! same key with another body is refused. Keys are kept a day, per account
//! (or per client address for requests without a token).

use actix_web::{
    HttpResponse, ResponseError,
    body::{self, BoxBody, EitherBody, MessageBody},
    dev::{Payload, ServiceRequest, ServiceResponse},
    http::{
        Method, StatusCode,
        header::{CONTENT_TYPE, HeaderName, HeaderValue},
    },
    middleware::Next,
    web::{self, Bytes},
};
use futures_util::StreamExt;

use crate::{
    auth::verified_claims,
    clock::MINUTE,
    credentials::digest,
    error::{ApiError, Code},
    middleware::IMPORT_LIMIT,
    models::idempotency,
    state::AppState,
};
/// How long a request with a key may run before the key is taken to be
/// abandoned (its instance died) and a retry may claim it again.
pub const IN_FLIGHT_LEASE: i64 = MINUTE;
const HEADER: &str = "idempotency-key";
const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// What becomes of a request with a key.
enum Claim {
    /// The first with this key: run it and keep its answer.
    First,
    /// Seen before with the same body: its answer.
    Replay {
        status: u16,
        content_type: String,
        body: Vec<u8>,
    },
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
    let scope = match verified_claims(req.headers(), &state) {
        Some(claims) => format!("account:{}", claims.sub),
        None => format!(
            "ip:{}",
            state.client_address(req.peer_addr(), req.headers())
        ),
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
    let (claim_scope, claim_key, claim_hash) = (scope.clone(), key.clone(), hash.clone());
    let claim = state
        .db(move |conn| {
            if idempotency::claim(conn, &claim_scope, &claim_key, &claim_hash, now)? {
                return Ok(Claim::First);
            }
            let Some(row) = idempotency::find(conn, &claim_scope, &claim_key)? else {
                return Err(in_progress());
            };
            if row.request_hash != claim_hash {
                return Err(ApiError::invalid(
                    Code::IdempotencyKeyReused,
                    "this Idempotency-Key was used for another request",
                ));
            }
            if idempotency::take_over(conn, &row, now - IN_FLIGHT_LEASE, now)? {
                return Ok(Claim::First);
            }
            let (Some(status), Some(content_type), Some(body)) =
                (row.status, row.content_type, row.body)
            else {
                return Err(in_progress());
            };
            Ok(Claim::Replay {
                status: u16::try_from(status).unwrap_or(200),
                content_type,
                body,
            })
        })
        .await;
    match claim {
        Err(error) => refuse(req, error),
        Ok(Claim::Replay {
            status,
            content_type,
            body,
        }) => {
            let response =
                HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
                    .content_type(content_type)
                    .insert_header((REPLAYED, "true"))
                    .body(body);
            Ok(req.into_response(response).map_into_right_body())
        }
        Ok(Claim::First) => {
            let response = next.call(req).await?;
            let status = response.status();
            let content_type = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("application/octet-stream")
                .to_owned();
            let (http, response) = response.into_parts();
            let (mut head, body) = response.into_parts();
            let bytes = body::to_bytes(body)
                .await
                .map_err(|e| ApiError::Internal(e.into().to_string()))?;
            let kept = bytes.clone();
            state
                .db(move |conn| {
                    // A server failure keeps nothing: the request may be retried.
                    if status.is_server_error() {
                        idempotency::release(conn, &scope, &key)?;
                    } else {
                        idempotency::complete(
                            conn,
                            &scope,
                            &key,
                            i32::from(status.as_u16()),
                            &content_type,
                            &kept,
                        )?;
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
