//! What the service benchmarks share: a `kingpost serve` child process,
//! and archives of random games stored directly.

#[allow(dead_code)] // Not every benchmark writes moves' rows directly.
pub mod move_rows;
#[allow(dead_code)] // Not every benchmark plays games.
pub mod players;
#[allow(dead_code)] // Not every benchmark reads /proc.
pub mod process;
#[allow(dead_code)] // Not every benchmark counts round trips.
pub mod round_trips;
#[allow(dead_code)] // Not every benchmark seeds an archive.
pub mod seeding;

use std::{
    net::TcpListener,
    os::unix::process::CommandExt,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// Whether the arguments ask for the database `name` (`sqlite` or
/// `postgres`): when they name neither, both are.
#[allow(dead_code)] // Not every benchmark runs on both databases.
pub fn wants_database(args: &[String], name: &str) -> bool {
    !args.iter().any(|a| a == "sqlite" || a == "postgres") || args.iter().any(|a| a == name)
}

/// A running `kingpost serve` (the release binary when run by `cargo
/// bench`, or the one `KINGPOST_BENCH_SERVER` names: another build to
/// compare in the same run), killed when dropped.
#[allow(dead_code)] // Not every benchmark runs a server.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:<port>/api/v1`
    pub base: String,
}

#[allow(dead_code)]
impl Server {
    /// Starts a server on a free port over `database_url`, with `extra`
    /// arguments, and waits until it answers.
    pub fn start(database_url: &str, extra: &[&str]) -> Server {
        Server::start_on(None, database_url, extra)
    }

    /// As [`Server::start`], its every thread kept on CPU `cpu` when one
    /// is named.
    pub fn start_on(cpu: Option<usize>, database_url: &str, extra: &[&str]) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let bind = format!("127.0.0.1:{port}");
        let binary = std::env::var("KINGPOST_BENCH_SERVER")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_kingpost").to_owned());
        // The log goes to a file, so that a server that fails to start
        // says why.
        let log_path = std::env::temp_dir().join(format!("kingpost-bench-{port}.log"));
        let log = std::fs::File::create(&log_path).unwrap();
        // KINGPOST_BENCH_SERVER_LOG=<filter> keeps the server's log, at
        // that level (`info,kingpost::sql=debug` times each change).
        let logging = std::env::var("KINGPOST_BENCH_SERVER_LOG").ok();
        let mut command = Command::new(binary);
        if let Some(cpu) = cpu {
            // SAFETY: the closure only makes a system call, as a child
            // between fork and exec may.
            #[allow(unsafe_code)]
            unsafe {
                command.pre_exec(move || process::pin_to_cpu(cpu));
            }
        }
        let child = command
            .args(["serve", "--bind", &bind, "--database-url", database_url])
            .args(extra)
            .env("KINGPOST_JWT_SECRET", "bench")
            .env("RUST_LOG", logging.as_deref().unwrap_or("warn"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut server = Server {
            child,
            base: format!("http://{bind}/api/v1"),
        };
        kingpost_api::domain::webhooks::install_tls_provider();
        let client = reqwest::blocking::Client::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        while client
            .get(format!("{}/variants", server.base))
            .send()
            .is_err()
        {
            let exited = server.child.try_wait().unwrap();
            if exited.is_some() || Instant::now() >= deadline {
                let said = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("the server did not start ({exited:?}); its log:\n{said}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        match logging {
            Some(_) => eprintln!("the server's log: {}", log_path.display()),
            None => {
                let _ = std::fs::remove_file(&log_path);
            }
        }
        server
    }

    #[allow(dead_code)] // each bench compiles this module; not every one reads the pid
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
