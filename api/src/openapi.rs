//! The OpenAPI 3.1 document: paths collected from the routes themselves,
//! with the API's description and security scheme added here.

use utoipa::{
    Modify, OpenApi as _,
    openapi::{
        OpenApi,
        security::{HttpAuthScheme, HttpBuilder, SecurityScheme},
    },
};

#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "kingpost",
        description = "Correspondence chess: chess, Chess960, Teleporting Kings, Switching, Captive Kings and \
King to Bunker Leap, one move per request.\n\n\
Authenticate with `Authorization: Bearer <JWT>`: a session token from `POST /api/v1/auth/token`, or a personal \
access token from `POST /api/v1/tokens` with the scopes `game:read`, `game:play`, `challenge:write`. \
Errors are RFC 9457 `application/problem+json` with a stable `type` and `code`.",
        license(name = "AGPL-3.0-or-later", identifier = "AGPL-3.0-or-later"),
    ),
    tags(
        (name = "accounts", description = "Registration and the caller's account"),
        (name = "auth", description = "Signing in and refreshing"),
        (name = "tokens", description = "Personal access tokens for clients and bots"),
        (name = "variants", description = "The rule sets"),
        (name = "challenges", description = "Offers of games"),
        (name = "games", description = "Games and moves"),
        (name = "positions", description = "The rules engine"),
        (name = "pgn", description = "PGN export and import"),
        (name = "events", description = "Event stream and webhooks"),
    ),
    components(schemas(crate::error::Problem)),
    modifiers(&BearerAuth),
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("A session or personal access token"))
                    .build(),
            ),
        );
    }
}

/// The whole document around the collected `paths`.
pub fn finish(paths: OpenApi) -> OpenApi {
    let mut document = ApiDoc::openapi();
    document.merge(paths);
    document
}
