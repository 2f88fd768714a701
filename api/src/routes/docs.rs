//! The OpenAPI document at `/api/v1/openapi.json` and the docs page at
//! `/docs`, whose assets the binary serves itself.

use utoipa_swagger_ui::SwaggerUi;

/// The docs page, reading the document from `/api/v1/openapi.json`.
pub fn service() -> SwaggerUi {
    SwaggerUi::new("/docs/{_:.*}").config(utoipa_swagger_ui::Config::from("/api/v1/openapi.json"))
}

/// `/api/v1/openapi.json`: the document, written once and shared by every
/// worker (each builds its own app, and a document of its own would cost
/// each some megabytes).
pub fn document(json: actix_web::web::Bytes) -> actix_web::Resource {
    actix_web::web::resource("/api/v1/openapi.json")
        .guard(actix_web::guard::Get())
        .to(move || {
            let json = json.clone();
            async move {
                actix_web::HttpResponse::Ok()
                    .content_type("application/json")
                    .body(json)
            }
        })
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
