//! Password hashing on a few threads of its own. An argon2id hash takes
//! 19 MiB of memory for a moment; hashed on the general blocking threads,
//! each of dozens of threads keeps such a block in its allocator's arena
//! after a burst of sign-ins (a hundred of them left the server holding
//! 1.4 GiB). Here as many threads as cores hash, one password each at a
//! time, and no request holds a database connection while they do.

use std::sync::OnceLock;

use crate::{credentials, error::ApiError, secret::Secret, workers::Workers};

/// Runs `work` on a password thread: as many as cores.
async fn run<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    static THREADS: OnceLock<Workers> = OnceLock::new();
    let threads = THREADS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Workers::start("kingpost-passwords", cores, 0)
    });
    threads
        .run(work)
        .await
        .map_err(|_| ApiError::Internal("a password thread failed".to_owned()))
}

/// An argon2id hash of `password` with a fresh salt.
pub async fn hash(password: Secret) -> Result<String, ApiError> {
    run(move || credentials::hash_password(password.expose())).await?
}

/// Whether `password` matches `hash`.
pub async fn verify(password: Secret, hash: String) -> Result<bool, ApiError> {
    run(move || credentials::verify_password(password.expose(), &hash)).await
}
