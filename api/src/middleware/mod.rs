//! What happens to every request around its handler: rate limits and the
//! caps on held requests and imports, idempotency keys, the HTTP
//! conventions (HEAD, caching), and the largest bodies read. Imports the
//! state and the credentials, never the routes.

pub mod conventions;
pub mod idempotency;
pub mod limits;

/// The largest JSON body the API reads.
pub const JSON_LIMIT: usize = 64 * 1024;
/// The largest PGN body an import reads.
pub const IMPORT_LIMIT: usize = 8 * 1024 * 1024;
