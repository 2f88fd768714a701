//! Password hashing on a few threads of its own. An argon2id hash takes
//! 19 MiB of memory for a moment; hashed on the general blocking threads,
//! each of dozens of threads keeps such a block in its allocator's arena
//! after a burst of sign-ins (a hundred of them left the server holding
//! 1.4 GiB). Here as many threads as cores hash, one password each at a
//! time, and no request holds a database connection while they do.

use std::sync::{
    Mutex, OnceLock,
    mpsc::{self, Receiver, Sender},
};

use tokio::sync::oneshot;

use crate::{credentials, error::ApiError, secret::Secret};

type Job = Box<dyn FnOnce() + Send>;

fn pool() -> &'static Mutex<Sender<Job>> {
    static POOL: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (sender, receiver) = mpsc::channel::<Job>();
        let receiver: &'static Mutex<Receiver<Job>> = Box::leak(Box::new(Mutex::new(receiver)));
        let threads = std::thread::available_parallelism().map_or(2, usize::from);
        for n in 0..threads {
            std::thread::Builder::new()
                .name(format!("kingpost-passwords-{n}"))
                .spawn(move || {
                    loop {
                        let job = receiver.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                })
                .expect("a password thread");
        }
        Mutex::new(sender)
    })
}

/// Runs `work` on a password thread.
async fn run<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    let (done, result) = oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = done.send(work());
    });
    pool()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send(job)
        .map_err(|_| ApiError::Internal("the password threads are gone".to_owned()))?;
    result
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
