//! The application: the one function that builds it around the shared
//! state (which `kingpost serve` and the tests both call), with its
//! middleware, CORS and the OpenAPI document. The root of the service:
//! nothing below imports it.

use actix_web::{
    App, HttpResponse,
    body::MessageBody,
    dev::{ServiceFactory, ServiceRequest, ServiceResponse},
    web,
};
use std::sync::LazyLock;

use utoipa::openapi::OpenApi;
use utoipa_actix_web::AppExt;

use crate::{
    error::{self, ApiError},
    middleware::{
        JSON_LIMIT, conventions::http_conventions, idempotency::idempotent, limits::limit_requests,
    },
    openapi, routes,
    state::AppState,
};

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

/// The document as `/api/v1/openapi.json` serves it: built and written
/// once, for every worker.
fn served_document() -> web::Bytes {
    static DOCUMENT: LazyLock<web::Bytes> = LazyLock::new(|| {
        web::Bytes::from(
            serde_json::to_vec(&openapi_document()).expect("the OpenAPI document is JSON"),
        )
    });
    DOCUMENT.clone()
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
        .wrap(actix_web::middleware::from_fn(http_conventions))
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
        .service(routes::docs::document(served_document()))
        .service(routes::docs::service())
        .service(routes::docs::redirect_to_slash())
        .configure(routes::web_client::configure)
        .into_utoipa_app();
    api_routes(app)
        .into_app()
        .configure(routes::lichess::configure)
        .default_service(web::to(not_found))
}

/// Browsers may call the API from any origin: it is authorised by bearer
/// tokens, never by cookies.
fn cors() -> actix_cors::Cors {
    use actix_web::http::header;
    actix_cors::Cors::default()
        .allow_any_origin()
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE"])
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
