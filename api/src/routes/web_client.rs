//! The reference web client at `/`: plain HTML, CSS and JavaScript from
//! `api/web`, embedded in the binary. It plays through the public API
//! alone, so it is also a worked example for client authors.

use actix_web::{HttpResponse, http::header, web};

use crate::error::ApiError;

/// A script of the client, served from `api/web`.
macro_rules! script {
    ($name:literal) => {
        (
            $name,
            "text/javascript; charset=utf-8",
            include_str!(concat!("../../web/", $name)),
        )
    };
}

/// The rules for players of a rule set, from `docs/rules`, as `rules-<key>.md`.
macro_rules! rules {
    ($key:literal) => {
        (
            concat!("rules-", $key, ".md"),
            "text/markdown; charset=utf-8",
            include_str!(concat!("../../../docs/rules/", $key, ".md")),
        )
    };
}

/// Every file of the client: its name under `/web/` and its content type.
const ASSETS: &[(&str, &str, &str)] = &[
    script!("analysis.js"),
    script!("app.js"),
    script!("api.js"),
    script!("board.js"),
    script!("clocks.js"),
    script!("dom.js"),
    script!("explorer.js"),
    script!("game.js"),
    script!("moves.js"),
    script!("picking.js"),
    script!("pieces.js"),
    script!("players.js"),
    script!("rules.js"),
    script!("study.js"),
    script!("theme.js"),
    script!("time.js"),
    script!("teams.js"),
    script!("tournaments.js"),
    script!("variants.js"),
    script!("words.js"),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../../web/app.css"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        include_str!("../../web/icon.svg"),
    ),
    rules!("standard"),
    rules!("teleporting-kings"),
    rules!("switching"),
    rules!("captive-kings"),
    rules!("bunker-leap"),
];

const INDEX: &str = include_str!("../../web/index.html");

/// The service worker, at the root so that its scope is the whole page.
const SERVICE_WORKER: &str = include_str!("../../web/sw.js");

/// Nothing but this server's own files and API: no inline script, nothing
/// from elsewhere, no framing.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     worker-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/sw.js", web::get().to(service_worker))
        .route("/web/{file}", web::get().to(asset));
}

async fn index() -> HttpResponse {
    page("text/html; charset=utf-8", INDEX)
}

async fn service_worker() -> HttpResponse {
    page("text/javascript; charset=utf-8", SERVICE_WORKER)
}

async fn asset(file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    ASSETS
        .iter()
        .find(|(name, _, _)| *name == file.as_str())
        .map(|(_, content_type, body)| page(content_type, body))
        .ok_or_else(|| ApiError::NotFound(format!("no file {file} in the web client")))
}

fn page(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type.to_owned()))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        // Small files that change with each release: always revalidated.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(body)
}
