//! HTTP conventions every answer follows: `HEAD` wherever `GET` is served
//! (RFC 9110, 9.3.2), and `Cache-Control: no-store` on answers that carry
//! tokens or an account's own data (RFC 6749, 5.1), so that no shared cache
//! keeps them; and PGN answered as `text/plain` to a client that asks for
//! it (generated clients read text, not `application/x-chess-pgn`).

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::{
        Method,
        header::{self, HeaderValue},
    },
    middleware::Next,
};

use crate::openapi::PGN;

pub async fn http_conventions(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if req.method() == Method::HEAD {
        // Routed and answered as the GET it asks about; the HTTP codec,
        // which saw the HEAD, sends the headers (Content-Length too) and
        // no body.
        req.head_mut().method = Method::GET;
    }
    let private = req.headers().contains_key(header::AUTHORIZATION)
        || req.path().starts_with("/api/v1/auth/");
    let plain_text = wants_plain_text(req.headers());
    let mut res = next.call(req).await?;
    let pgn = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(PGN.as_bytes()));
    if plain_text && pgn {
        res.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    if private && !res.headers().contains_key(header::CACHE_CONTROL) {
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(res.map_into_boxed_body())
}

/// Whether `Accept` names `text/plain` and not PGN's own type.
fn wants_plain_text(headers: &header::HeaderMap) -> bool {
    let accept = headers
        .get_all(header::ACCEPT)
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    let named = |media_type: &str| {
        accept.split(',').any(|range| {
            range
                .split(';')
                .next()
                .is_some_and(|r| r.trim().eq_ignore_ascii_case(media_type))
        })
    };
    named("text/plain") && !named(PGN)
}
