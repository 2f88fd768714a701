//! HTTP conventions every answer follows: `HEAD` wherever `GET` is served
//! (RFC 9110, 9.3.2), and `Cache-Control: no-store` on answers that carry
//! tokens or an account's own data (RFC 6749, 5.1), so that no shared cache
//! keeps them.

use actix_web::{
    body::{BoxBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::{
        Method,
        header::{self, HeaderValue},
    },
    middleware::Next,
};

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
    let mut res = next.call(req).await?;
    if private && !res.headers().contains_key(header::CACHE_CONTROL) {
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    Ok(res.map_into_boxed_body())
}
