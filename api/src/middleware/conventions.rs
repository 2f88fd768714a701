//! HTTP conventions every answer follows: `HEAD` wherever `GET` is served
//! (RFC 9110, 9.3.2), and `Cache-Control: no-store` on answers that carry
//! tokens or an account's own data (RFC 6749, 5.1), so that no shared cache
//! keeps them; and PGN answered as `text/plain` to a client that asks for
//! it (generated clients read text, not `application/x-chess-pgn`).
//! Before routing, a request's headers move into a map of their own size:
//! a long poll or an event stream holds its request for hours.

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{RequestHead, ServiceRequest, ServiceResponse},
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
    compact_headers(req.head_mut());
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

/// Moves the headers into a map sized to them. actix-http parses every
/// request into a pooled map with room for 16 headers (about 6.5 KiB); a
/// request that is held (10,000 long polls) keeps that map all along, and
/// the few headers a client sends need a quarter of it.
fn compact_headers(head: &mut RequestHead) {
    let headers = std::mem::take(&mut head.headers);
    let mut compact = header::HeaderMap::with_capacity(headers.len_keys());
    for (name, value) in headers {
        compact.append(name, value);
    }
    head.headers = compact;
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

#[cfg(test)]
mod tests {
    use actix_web::{http::header::HeaderName, test::TestRequest};

    use super::*;

    #[test]
    fn compacted_headers_keep_every_value_in_a_smaller_map() {
        let mut req = TestRequest::get()
            .insert_header((header::AUTHORIZATION, "Bearer t"))
            .append_header((header::ACCEPT, "text/plain"))
            .append_header((header::ACCEPT, "application/json"))
            .to_srv_request();
        let pooled = req.head_mut();
        pooled.headers.reserve(16);
        let before = pooled.headers.clone();
        compact_headers(pooled);
        assert!(req.headers().capacity() < before.capacity());
        for name in [
            header::AUTHORIZATION,
            header::ACCEPT,
            HeaderName::from_static("x-none"),
        ] {
            assert_eq!(
                req.headers().get_all(&name).collect::<Vec<_>>(),
                before.get_all(&name).collect::<Vec<_>>(),
            );
        }
        assert_eq!(req.headers().len(), 3);
    }
}
