//! The service commands: serve, migrate, openapi.

use std::io::Write;

use kingpost_api::{app, db, server};

pub fn serve(options: server::ServeOptions) -> Result<(), String> {
    server::init_logging();
    server::serve(options)
}

pub fn migrate(database_url: &str) -> Result<(), String> {
    server::init_logging();
    let pool = db::connect(database_url)?;
    let mut conn = pool
        .get()
        .map_err(|e| format!("cannot connect to {database_url}: {e}"))?;
    let applied = db::run_migrations(&mut conn)?;
    println!("{applied} migration(s) applied to {database_url}");
    Ok(())
}

/// Writes the OpenAPI document to `output` (`-` for stdout).
pub fn openapi(output: &str) -> Result<(), String> {
    let json = app::openapi_document()
        .to_pretty_json()
        .map_err(|e| format!("openapi: {e}"))?
        + "\n";
    if output == "-" {
        std::io::stdout()
            .write_all(json.as_bytes())
            .map_err(|e| e.to_string())
    } else {
        std::fs::write(output, json).map_err(|e| format!("{output}: {e}"))
    }
}
