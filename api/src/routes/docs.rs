//! The OpenAPI document at `/api/v1/openapi.json` and the docs page at
//! `/docs`, whose assets the binary serves itself.

use utoipa::openapi::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

pub fn service(document: OpenApi) -> SwaggerUi {
    SwaggerUi::new("/docs/{_:.*}").url("/api/v1/openapi.json", document)
}
