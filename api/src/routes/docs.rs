//! The OpenAPI document at `/api/v1/openapi.json` and the docs page at
//! `/docs`, whose assets the binary serves itself.

use utoipa::openapi::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

pub fn service(document: OpenApi) -> SwaggerUi {
    SwaggerUi::new("/docs/{_:.*}").url("/api/v1/openapi.json", document)
}

/// `/docs` without its slash, as people type it: a permanent redirect to
/// `/docs/`, where the page's relative asset paths resolve.
pub fn redirect_to_slash() -> actix_web::Resource {
    actix_web::web::resource("/docs").to(|| async {
        actix_web::HttpResponse::PermanentRedirect()
            .insert_header((actix_web::http::header::LOCATION, "/docs/"))
            .finish()
    })
}
