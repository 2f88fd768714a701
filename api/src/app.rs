//! The application: its shared state and the one function that builds it,
//! which `kingpost serve` and the tests both call.

use std::{
    net::{IpAddr, SocketAddr},
    sync::{Arc, Mutex},
};

use actix_web::{
    App, HttpResponse,
    body::MessageBody,
    dev::{ServiceFactory, ServiceRequest, ServiceResponse},
    http::header::HeaderMap,
    web,
};
use utoipa::openapi::OpenApi;
use utoipa_actix_web::AppExt;

use crate::{
    auth::JwtKeys,
    clock::Clock,
    db::{DbConnection, DbPool},
    error::{self, ApiError},
    feeds::Feeds,
    idempotency::idempotent,
    limits::{HeldSlots, ImportSlots, Limiter, RateLimits, limit_requests},
    notify::{Hub, Outbox},
    openapi, routes,
};

/// The largest JSON body the API reads.
pub const JSON_LIMIT: usize = 64 * 1024;

/// What every request shares. No game lives here: any instance can serve
/// any request.
#[derive(Debug)]
pub struct AppState {
    pub pool: DbPool,
    pub keys: JwtKeys,
    pub clock: Arc<dyn Clock>,
    /// Wakes the requests waiting for changes.
    pub hub: Hub,
    pub limits: RateLimits,
    pub limiter: Limiter,
    /// The PGN imports running on this instance.
    pub import_slots: ImportSlots,
    /// The streams and long polls this instance holds open.
    pub held: Arc<HeldSlots>,
    /// Each account's new events, read once for all its streams.
    pub feeds: Feeds,
    /// Reverse proxies whose `X-Forwarded-For` is believed: the client is
    /// the address they name, for budgets and idempotency keys.
    pub trusted_proxies: Vec<IpAddr>,
    /// Whether webhooks may name private and loopback addresses
    /// (development and tests only; see `domain::webhook_targets`).
    pub allow_private_webhooks: bool,
    /// Takes turns among this process's writers on SQLite, which has one
    /// writer at a time: waiting here is prompt, where SQLite's own busy
    /// handler sleeps in steps of up to 100 ms.
    pub sqlite_writer: Arc<Mutex<()>>,
}

impl AppState {
    /// The client's address: the peer's, or, when the peer is a trusted
    /// proxy, the nearest address in `X-Forwarded-For` that is not one of
    /// them (each proxy appends the address it was reached from; a client
    /// can forge only the entries to the left of what they added). The key
    /// of the client's budgets; `unknown` without a peer address.
    pub fn client_address(&self, peer: Option<SocketAddr>, headers: &HeaderMap) -> String {
        let Some(mut address) = peer.map(|peer| peer.ip()) else {
            return "unknown".to_owned();
        };
        if !self.trusted_proxies.contains(&address) {
            return address.to_string();
        }
        let forwarded = headers
            .get_all("x-forwarded-for")
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .collect::<Vec<_>>();
        for hop in forwarded.iter().rev() {
            match hop.trim().parse::<IpAddr>() {
                Ok(hop) => {
                    address = hop;
                    if !self.trusted_proxies.contains(&hop) {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
        address.to_string()
    }

    /// Runs `f` with a pooled connection on a blocking thread.
    pub async fn db<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, ApiError> + Send + 'static,
    {
        let pool = self.pool.clone();
        web::block(move || {
            let mut conn = pool.get()?;
            f(&mut conn)
        })
        .await?
    }

    /// Runs a change with a pooled connection on a blocking thread, then
    /// wakes whoever waits for what it changed (even when it failed after
    /// committing part of it: a needless wake-up costs a read).
    pub async fn write<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection, &mut Outbox) -> Result<T, ApiError> + Send + 'static,
    {
        self.write_then(f, |_, done| Ok(done)).await
    }

    /// Runs a change as [`write`](Self::write) does, then `answer` on the
    /// same connection and thread once the writers' turn is given back: the
    /// answer to a change is read without a second trip through the pool.
    pub async fn write_then<T, U, F, G>(&self, change: F, answer: G) -> Result<U, ApiError>
    where
        U: Send + 'static,
        F: FnOnce(&mut DbConnection, &mut Outbox) -> Result<T, ApiError> + Send + 'static,
        G: FnOnce(&mut DbConnection, T) -> Result<U, ApiError> + Send + 'static,
    {
        let pool = self.pool.clone();
        let sqlite_writer = self.sqlite_writer.clone();
        let (result, outbox) = web::block(move || {
            let mut outbox = Outbox::default();
            let result = pool.get().map_err(ApiError::from).and_then(|mut conn| {
                let turn = matches!(*conn, DbConnection::Sqlite(_)).then(|| {
                    sqlite_writer
                        .lock()
                        .unwrap_or_else(|poison| poison.into_inner())
                });
                let done = change(&mut conn, &mut outbox);
                drop(turn);
                answer(&mut conn, done?)
            });
            (result, outbox)
        })
        .await?;
        self.hub.publish(outbox);
        result
    }
}

/// The API's routes and their OpenAPI description, from the same calls.
fn api_routes<T>(app: utoipa_actix_web::UtoipaApp<T>) -> utoipa_actix_web::UtoipaApp<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = actix_web::Error, InitError = ()>,
{
    app.service(utoipa_actix_web::scope("/api/v1").configure(routes::configure))
}

/// The OpenAPI document of the API, as served and as committed.
pub fn openapi_document() -> OpenApi {
    let (_, paths) = api_routes(App::new().into_utoipa_app()).split_for_parts();
    openapi::finish(paths)
}

/// Builds the application around `state`.
pub fn build(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    // The document is served at /api/v1/openapi.json: registered before the
    // /api/v1 scope, which would otherwise answer 404 for it.
    let app = App::new()
        .wrap(actix_web::middleware::from_fn(idempotent))
        .wrap(actix_web::middleware::from_fn(limit_requests))
        .wrap(security_headers())
        .wrap(actix_web::middleware::from_fn(
            crate::conventions::http_conventions,
        ))
        .wrap(cors())
        .wrap(tracing_actix_web::TracingLogger::default())
        .app_data(state)
        .app_data(
            web::JsonConfig::default()
                .limit(JSON_LIMIT)
                .error_handler(error::json_error),
        )
        .app_data(web::QueryConfig::default().error_handler(error::query_error))
        .app_data(web::PathConfig::default().error_handler(error::path_error))
        .service(routes::docs::service(openapi_document()))
        .service(routes::docs::redirect_to_slash())
        .configure(routes::web_client::configure)
        .into_utoipa_app();
    api_routes(app)
        .into_app()
        .default_service(web::to(not_found))
}

/// Browsers may call the API from any origin: it is authorised by bearer
/// tokens, never by cookies.
fn cors() -> actix_cors::Cors {
    use actix_web::http::header;
    actix_cors::Cors::default()
        .allow_any_origin()
        .allowed_methods(["GET", "POST", "PUT", "DELETE"])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::IF_NONE_MATCH,
            header::HeaderName::from_static("idempotency-key"),
            header::HeaderName::from_static("last-event-id"),
        ])
        .expose_headers([
            header::ETAG,
            header::LOCATION,
            header::RETRY_AFTER,
            header::HeaderName::from_static("ratelimit-limit"),
            header::HeaderName::from_static("ratelimit-remaining"),
            header::HeaderName::from_static("ratelimit-reset"),
            header::HeaderName::from_static("idempotent-replayed"),
        ])
        .max_age(3600)
}

fn security_headers() -> actix_web::middleware::DefaultHeaders {
    actix_web::middleware::DefaultHeaders::new()
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Referrer-Policy", "no-referrer"))
        .add(("Cross-Origin-Resource-Policy", "cross-origin"))
}

async fn not_found() -> HttpResponse {
    use actix_web::ResponseError;
    ApiError::NotFound("no route for this method and path".to_owned()).error_response()
}
