//! Spends each API request from the budgets it falls under (see
//! `budgets`).

use actix_web::{
    ResponseError,
    body::{EitherBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    http::{Method, header::HeaderValue},
    middleware::Next,
    web,
};

use std::{future::Future, pin::Pin};

use actix_web::{FromRequest, HttpRequest, dev::Payload};

use crate::{
    auth::verified_claims,
    budgets::{ExpensiveRead, Standing, refusal, seconds},
    error::ApiError,
    models::account::username_key,
    state::AppState,
};

/// A turn among the instance's expensive reads (searches, the explorer,
/// whole-archive exports), taken for the client's address before the read
/// runs and held until its answer is done (a streamed one, until its last
/// page): `429` or `503` when none is to be had.
#[derive(Debug)]
pub struct ExpensiveTurn(pub ExpensiveRead);

impl FromRequest for ExpensiveTurn {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<ExpensiveTurn, ApiError>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let peer = req.peer_addr();
        let headers = req.headers().clone();
        Box::pin(async move {
            let state =
                state.ok_or_else(|| ApiError::Internal("no application state".to_owned()))?;
            let address = state.client_address(peer, &headers);
            Ok(ExpensiveTurn(state.expensive.acquire(&address).await?))
        })
    }
}

fn set_headers(headers: &mut actix_web::http::header::HeaderMap, standing: Standing) {
    for (name, value) in [
        ("ratelimit-limit", standing.limit.to_string()),
        ("ratelimit-remaining", standing.remaining.to_string()),
        ("ratelimit-reset", seconds(standing.reset).to_string()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(
                actix_web::http::header::HeaderName::from_static(name),
                value,
            );
        }
    }
}

/// Spends the request from the budgets it falls under; answers 429 with
/// `Retry-After` when one is spent, and tells the tightest budget in
/// `RateLimit-*` headers either way.
pub async fn limit_requests(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    if !req.path().starts_with("/api/") || req.method() == Method::OPTIONS {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    }
    let limits = state.limits;
    let address = state.client_address(req.peer_addr(), req.headers());
    let mut budgets = vec![(
        format!("ip:{address}"),
        limits.per_address,
        "requests from this address",
    )];
    let signing_in = req.method() == Method::POST
        && matches!(req.path(), "/api/v1/auth/token" | "/api/v1/accounts");
    if signing_in {
        budgets.push((
            format!("sign-in:{address}"),
            limits.sign_in,
            "sign-ins and registrations",
        ));
    }
    if let Some(claims) = verified_claims(req.headers(), &state) {
        budgets.push((
            format!("account:{}", claims.sub),
            limits.per_account,
            "requests for this account",
        ));
    }
    let mut tightest: Option<Standing> = None;
    for (key, quota, what) in budgets {
        let standing = state.limiter.spend(&key, quota);
        if !standing.allowed {
            let mut response = refusal(standing, what).error_response();
            set_headers(response.headers_mut(), standing);
            return Ok(req.into_response(response).map_into_right_body());
        }
        if tightest.is_none_or(|t| standing.remaining < t.remaining) {
            tightest = Some(standing);
        }
    }
    let mut response = next.call(req).await?;
    if let Some(standing) = tightest {
        set_headers(response.headers_mut(), standing);
    }
    Ok(response.map_into_left_body())
}

/// A username's failed sign-ins from one client address: a username that
/// keeps failing from one address is locked there for a while, and a
/// stranger elsewhere cannot lock its owner out. Checked before a password
/// is verified (signing in, or confirming a change), spent when it is wrong.
#[derive(Debug)]
pub struct FailedSignIns<'a> {
    state: &'a AppState,
    key: String,
}

impl<'a> FailedSignIns<'a> {
    /// The budget of `username` from the client of `req`: `429` when spent.
    pub fn check(
        state: &'a AppState,
        username: &str,
        req: &HttpRequest,
    ) -> Result<FailedSignIns<'a>, ApiError> {
        let address = state.client_address(req.peer_addr(), req.headers());
        let key = format!("failed:{}:{address}", username_key(username));
        let standing = state.limiter.check(&key, state.limits.failed_sign_ins);
        if !standing.allowed {
            return Err(refusal(standing, "failed sign-ins for this username"));
        }
        Ok(FailedSignIns { state, key })
    }

    /// Counts a wrong password.
    pub fn spend(&self) {
        self.state
            .limiter
            .spend(&self.key, self.state.limits.failed_sign_ins);
    }
}
