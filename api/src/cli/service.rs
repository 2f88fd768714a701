//! The service commands: serve, migrate, openapi.

use std::io::Write;

use anyhow::Context;
use kingpost_api::{app, db, server};

pub fn serve(options: server::ServeOptions) -> anyhow::Result<()> {
    server::init_logging();
    server::serve(options)
}

pub fn migrate(database_url: &str) -> anyhow::Result<()> {
    server::init_logging();
    let pool = db::connect(database_url)?;
    let mut conn = pool
        .get()
        .with_context(|| format!("cannot connect to {database_url}"))?;
    let applied = db::run_migrations(&mut conn)?;
    println!("{applied} migration(s) applied to {database_url}");
    Ok(())
}

/// Writes the OpenAPI document to `output` (`-` for stdout).
pub fn openapi(output: &str) -> anyhow::Result<()> {
    let json = app::openapi_document()
        .to_pretty_json()
        .context("openapi")?
        + "\n";
    if output == "-" {
        std::io::stdout()
            .write_all(json.as_bytes())
            .context("stdout")
    } else {
        std::fs::write(output, json).with_context(|| output.to_owned())
    }
}

/// Prints a new VAPID key pair: the private key as the variable that takes
/// it, and the public key browsers will subscribe with.
pub fn vapid_key(out: &mut impl Write) -> anyhow::Result<()> {
    use kingpost_api::domain::push::Pusher;
    let private_key = Pusher::new_private_key();
    let public_key = Pusher::new(&private_key, "mailto:operator@example.org", false)?.public_key();
    writeln!(out, "KINGPOST_VAPID_PRIVATE_KEY={private_key}")?;
    writeln!(
        out,
        "# its public key, which GET /api/v1/push/public-key gives browsers: {public_key}"
    )?;
    Ok(())
}
