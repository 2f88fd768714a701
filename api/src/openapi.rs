//! The OpenAPI 3.1 document: paths collected from the routes themselves,
//! with the API's description and security scheme added here.

use std::collections::BTreeMap;

use utoipa::{
    Modify, OpenApi as _,
    openapi::{
        OpenApi, RefOr, Schema,
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
Each operation's `security` names what it needs: a scope, nothing beyond a valid token (`[]`), or `session`, \
a signed-in session, which may do everything (personal tokens are refused, except that one may revoke itself). \
Errors are RFC 9457 `application/problem+json` with a stable `type` and `code`.\n\n\
Limits: 600 requests a minute from one client address, 600 a minute for one account, 10 sign-ins and \
registrations a minute from one address; 5 failed sign-ins of a username from one address lock it there for 15 \
minutes; 20 event streams and long polls held at once by an account, 50 from an address. Each answer tells \
the tightest request budget in `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; a spent budget \
is a `429` with `Retry-After`. A busy database is a `503` with `Retry-After`. JSON bodies are limited to 64 KiB, \
PGN imports to 8 MiB and 10,000 games. A POST that changes state may carry an `Idempotency-Key`: repeated with \
the same key and body, it gets the first answer again.",
        license(name = "AGPL-3.0-or-later", identifier = "AGPL-3.0-or-later"),
    ),
    tags(
        (name = "accounts", description = "Registration and the caller's account"),
        (name = "auth", description = "Signing in and refreshing"),
        (name = "tokens", description = "Personal access tokens for clients and bots"),
        (name = "variants", description = "The rule sets"),
        (name = "users", description = "Profiles, ratings and leaderboards"),
        (name = "tournaments", description = "Tournaments: round robins, Swiss and team matches"),
        (name = "teams", description = "Teams, who play team matches"),
        (name = "challenges", description = "Offers of games"),
        (name = "games", description = "Games and moves"),
        (name = "positions", description = "The rules engine"),
        (name = "pgn", description = "PGN export and import"),
        (name = "collections", description = "Collections of imported games, for study"),
        (name = "search", description = "The games that reached a position"),
        (name = "events", description = "Event stream and webhooks"),
    ),
    components(schemas(crate::error::Problem)),
    modifiers(&BearerAuth),
)]
struct ApiDoc;

/// Adds the answers every operation may give: `429` for a spent budget,
/// `503` for a busy database, and for those with a body `400` (not readable), `413` (too large) and
/// `422` (the wrong shape); to those with query parameters `422` (a bad
/// or unknown one); to those that need a token `401`, and `403` for
/// the scope or session they ask (unless the operation says more of its
/// own `403`); and to every POST its `Idempotency-Key`.
struct RateLimitAnswers;

/// PGN's media type, as the document names it and the answers carry it.
pub const PGN: &str = "application/x-chess-pgn";

/// The operations of a path, each with its method's name.
fn operations_mut(
    item: &mut utoipa::openapi::PathItem,
) -> impl Iterator<Item = (&'static str, &mut utoipa::openapi::path::Operation)> {
    [
        ("GET", &mut item.get),
        ("PUT", &mut item.put),
        ("POST", &mut item.post),
        ("PATCH", &mut item.patch),
        ("DELETE", &mut item.delete),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.as_mut().map(|o| (method, o)))
}

impl Modify for RateLimitAnswers {
    fn modify(&self, openapi: &mut OpenApi) {
        use utoipa::openapi::{
            ContentBuilder, Ref, Required, ResponseBuilder,
            header::{Header, HeaderBuilder},
            path::{ParameterBuilder, ParameterIn},
            schema::{ObjectBuilder, Type},
        };
        let seconds = |description: &str| -> Header {
            HeaderBuilder::new()
                .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
                .description(Some(description))
                .build()
        };
        let problem_body = || {
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("Problem")))
                .build()
        };
        let answer = ResponseBuilder::new()
            .description("A rate limit is reached (`rate_limited`)")
            .header(
                "Retry-After",
                seconds("Seconds until the budget starts over"),
            )
            .header(
                "RateLimit-Reset",
                seconds("Seconds until the budget starts over"),
            )
            .content("application/problem+json", problem_body())
            .build();
        let problem = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content("application/problem+json", problem_body())
                .build()
        };
        let unreadable =
            problem("The body is not JSON, or not of the right content type (`malformed_request`)");
        let too_large = problem("The body is over the limit (`payload_too_large`)");
        let bad_query = problem(
            "A query parameter (or a header such as `Last-Event-ID`) out of its range, malformed \
             or unknown (`invalid_query`)",
        );
        let misshapen = problem(
            "The body is JSON of the wrong shape (`invalid_body`) or fails a rule of the operation",
        );
        let busy = ResponseBuilder::new()
            .description(
                "The database is busy or out of connections (`service_busy`): nothing was \
                 changed; retry after `Retry-After` seconds",
            )
            .header("Retry-After", seconds("Seconds to wait before retrying"))
            .content("application/problem+json", problem_body())
            .build();
        let key_in_use = problem(
            "A request with this `Idempotency-Key` is still running (`idempotency_key_in_use`; \
             free again a minute after it began if its server stopped)",
        );
        let key_parameter = ParameterBuilder::new()
            .name("Idempotency-Key")
            .parameter_in(ParameterIn::Header)
            .required(Required::False)
            .description(Some(
                "1 to 255 visible ASCII characters: a retry with the same key and body within a \
                 day gets the first answer again (`Idempotent-Replayed: true`); with another \
                 body, a `422 idempotency_key_reused`",
            ))
            .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
            .build();
        for item in openapi.paths.paths.values_mut() {
            if let Some(post) = item.post.as_mut() {
                post.parameters
                    .get_or_insert_with(Vec::new)
                    .push(key_parameter.clone().into());
                post.responses
                    .responses
                    .entry("409".to_owned())
                    .or_insert_with(|| key_in_use.clone().into());
                post.responses
                    .responses
                    .entry("422".to_owned())
                    .or_insert_with(|| misshapen.clone().into());
            }
            for (_, operation) in operations_mut(item) {
                let needed: Vec<String> = operation
                    .security
                    .iter()
                    .flatten()
                    .filter_map(|requirement| serde_json::to_value(requirement).ok())
                    .filter_map(|value| value.get("bearer").cloned())
                    .flat_map(|scopes| serde_json::from_value::<Vec<String>>(scopes).ok())
                    .flatten()
                    .collect();
                let secured = operation.security.as_ref().is_some_and(|s| !s.is_empty());
                let responses = &mut operation.responses.responses;
                if secured {
                    responses
                        .entry("401".to_owned())
                        .or_insert_with(|| problem("Not authenticated").into());
                }
                if let Some(scope) = needed.first() {
                    let refusal = if scope == "session" {
                        "Not a signed-in session".to_owned()
                    } else {
                        format!("The token lacks `{scope}`")
                    };
                    responses
                        .entry("403".to_owned())
                        .or_insert_with(|| problem(&refusal).into());
                }
                // PGN is text: offered as such to generators that read no
                // `application/x-chess-pgn` (the answer follows `Accept`).
                for response in responses.values_mut() {
                    if let RefOr::T(response) = response
                        && let Some(pgn) = response.content.get(PGN).cloned()
                    {
                        response.content.insert("text/plain".to_owned(), pgn);
                    }
                }
                let queried = operation.parameters.iter().flatten().any(|parameter| {
                    matches!(parameter, RefOr::T(p) if p.parameter_in == ParameterIn::Query)
                });
                if queried {
                    responses
                        .entry("422".to_owned())
                        .or_insert_with(|| bad_query.clone().into());
                }
                responses.insert("429".to_owned(), answer.clone().into());
                responses.insert("503".to_owned(), busy.clone().into());
                if operation.request_body.is_some() {
                    responses
                        .entry("400".to_owned())
                        .or_insert_with(|| unreadable.clone().into());
                    responses
                        .entry("413".to_owned())
                        .or_insert_with(|| too_large.clone().into());
                    responses
                        .entry("422".to_owned())
                        .or_insert_with(|| misshapen.clone().into());
                }
            }
        }
    }
}

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
    RateLimitAnswers.modify(&mut document);
    NamedVariants.modify(&mut document);
    RecordedExamples.modify(&mut document);
    document
}

/// Gives each variant of a tagged enum (`StartSpec`, `ClockSpec`: serde's
/// `tag = "kind"`, which utoipa writes as a `oneOf` of inline objects) a
/// schema of its own, `StartSpecChess960` and so on, and the `oneOf` a
/// discriminator on `kind`: generators then name the variants and pick one
/// by its tag, instead of `StartSpecType0..4` tried in turn.
struct NamedVariants;

impl NamedVariants {
    /// The single value of a variant's tag `kind`, if `item` is such a
    /// variant.
    fn tag_of(item: &RefOr<Schema>) -> Option<String> {
        let RefOr::T(Schema::Object(object)) = item else {
            return None;
        };
        let RefOr::T(Schema::Object(kind)) = object.properties.get("kind")? else {
            return None;
        };
        match kind.enum_values.as_deref()? {
            [serde_json::Value::String(tag)] => Some(tag.clone()),
            _ => None,
        }
    }

    /// `chess960` as a schema name's part: `Chess960`; `fen`: `Fen`.
    fn pascal(tag: &str) -> String {
        tag.split('_')
            .map(|word| {
                let mut chars = word.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_uppercase().chain(chars).collect()
                })
            })
            .collect()
    }
}

impl Modify for NamedVariants {
    fn modify(&self, openapi: &mut OpenApi) {
        use utoipa::openapi::{Ref, schema::Discriminator};
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let mut named = Vec::new();
        for (name, schema) in components.schemas.iter_mut() {
            let RefOr::T(Schema::OneOf(one_of)) = schema else {
                continue;
            };
            let Some(tags) = one_of
                .items
                .iter()
                .map(Self::tag_of)
                .collect::<Option<Vec<String>>>()
            else {
                continue;
            };
            let mut mapping = BTreeMap::new();
            for (item, tag) in one_of.items.iter_mut().zip(tags) {
                let variant = format!("{name}{}", Self::pascal(&tag));
                mapping.insert(tag, format!("#/components/schemas/{variant}"));
                let own = std::mem::replace(item, Ref::from_schema_name(variant.clone()).into());
                named.push((variant, own));
            }
            one_of.discriminator = Some(Discriminator::with_mapping("kind", mapping));
        }
        components.schemas.extend(named);
    }
}

/// Shows with each schema the example recorded from a real request or
/// answer by the API tests (`KINGPOST_RECORD_EXAMPLES=1`), and with each
/// problem answer one recorded with its status: what a client will really
/// get, never written by hand.
struct RecordedExamples;

impl Modify for RecordedExamples {
    fn modify(&self, openapi: &mut OpenApi) {
        let recorded: BTreeMap<String, serde_json::Value> =
            serde_json::from_str(include_str!("../../openapi/examples.json"))
                .expect("openapi/examples.json is a JSON object");
        // A problem answer shows one recorded from its operation with its
        // status (`Problem POST /api/v1/games/{id}/moves 409`), else one of
        // its status (`Problem 409`).
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (method, operation) in operations_mut(item) {
                for (status, response) in operation.responses.responses.iter_mut() {
                    let RefOr::T(response) = response else {
                        continue;
                    };
                    if let Some(RefOr::T(content)) =
                        response.content.get_mut("application/problem+json")
                    {
                        content.example = recorded
                            .get(&format!("Problem {method} {path} {status}"))
                            .or_else(|| recorded.get(&format!("Problem {status}")))
                            .cloned();
                    }
                }
            }
        }
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        for (name, example) in recorded {
            if let Some(RefOr::T(schema)) = components.schemas.get_mut(&name) {
                let (one, many) = match schema {
                    Schema::Object(s) => (&mut s.example, &mut s.examples),
                    Schema::Array(s) => (&mut s.example, &mut s.examples),
                    Schema::OneOf(s) => (&mut s.example, &mut s.examples),
                    Schema::AllOf(s) => (&mut s.example, &mut s.examples),
                    Schema::AnyOf(s) => (&mut s.example, &mut s.examples),
                    _ => continue,
                };
                *one = None;
                *many = vec![example];
            }
        }
    }
}
