//! Threads of their own, for work kept off the general blocking threads:
//! password hashing (few threads, each keeping one argon2 block) and the
//! reads that may lag (at a lower CPU priority, so that on a busy machine
//! moves and other changes come first). A job that panics fails its own
//! caller and leaves its thread running.

use std::sync::{
    Mutex,
    mpsc::{self, Receiver, Sender},
};

use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads taking jobs in turn.
#[derive(Debug)]
pub struct Workers {
    sender: Mutex<Sender<Job>>,
}

/// The job did not finish: it panicked, or the threads are gone.
#[derive(Debug)]
pub struct Failed;

impl Workers {
    /// Starts `threads` threads named `name-<n>`, each at `niceness`
    /// (0 keeps the process's priority).
    pub fn start(name: &str, threads: usize, niceness: i32) -> Workers {
        let (sender, receiver) = mpsc::channel::<Job>();
        let receiver: &'static Mutex<Receiver<Job>> = Box::leak(Box::new(Mutex::new(receiver)));
        for n in 0..threads.max(1) {
            std::thread::Builder::new()
                .name(format!("{name}-{n}"))
                .spawn(move || {
                    if niceness != 0 {
                        lower_this_threads_priority(niceness);
                    }
                    loop {
                        let job = receiver.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        match job {
                            Ok(job) => {
                                // The caller learns of a panic by its answer
                                // never coming.
                                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                            }
                            Err(_) => return,
                        }
                    }
                })
                .expect("a worker thread");
        }
        Workers {
            sender: Mutex::new(sender),
        }
    }

    /// Runs `work` on one of the threads and waits for its answer.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Failed> {
        let (done, answer) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = done.send(work());
        });
        self.sender
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(job)
            .map_err(|_| Failed)?;
        answer.await.map_err(|_| Failed)
    }
}

/// Lowers the calling thread's CPU priority to `niceness` (10 weighs
/// about a tenth of the default's share). Threads it starts inherit it.
#[allow(unsafe_code)] // A system call on this thread: see SAFETY.
pub fn lower_this_threads_priority(niceness: i32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and setpriority read and set this thread's
        // scheduling priority, and touch no memory of the process.
        let set = unsafe {
            let thread = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, niceness)
        };
        if set != 0 {
            tracing::warn!(
                error = %std::io::Error::last_os_error(),
                thread = std::thread::current().name().unwrap_or("unnamed"),
                "a thread meant to yield runs at the requests' priority"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn a_job_that_panics_fails_alone() {
        let workers = Workers::start("test-workers", 1, 0);
        assert!(workers.run(|| panic!("a failing job")).await.is_err());
        assert_eq!(
            workers.run(|| 2 + 2).await.unwrap(),
            4,
            "the thread still runs"
        );
    }
}
