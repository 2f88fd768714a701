//! Move requests against the database's own limit: the moves per second and
//! latency of `POST /games/{id}/moves` on the real `kingpost serve`
//! (release), beside the rate of single-row durable transactions on the same
//! database in the same run.
//!
//! `cargo bench -p kingpost-api --bench moves` (or `scripts/bench-moves`),
//! with `-- --seconds <s> --clients <n>`; Postgres from
//! `KINGPOST_BENCH_DATABASE_URL` (default the local `test` database, in a
//! fresh schema dropped at the end). For each database:
//!
//! - peak: every client plays its own game move by move, each move sent as
//!   soon as the last is answered, for a fixed time;
//! - half load: the same clients paced to half of that peak, latency counted
//!   from when each request was due (so a stall is not hidden);
//! - cost by ply: from the peak run, the mean latency of moves at plies
//!   1-40 against plies 281-320 of the same games;
//! - on Postgres, the peak again with two and four instances, each client
//!   sending its requests to the instances in turn;
//! - where the cores went in each peak run: the CPU time of the servers,
//!   the clients (this process) and Postgres per move, and what the
//!   machine as a whole spent (including time the hypervisor stole), read
//!   from `/proc`.
//!
//! Beside it, on the same database after the runs: the same rows written
//! directly, with the server's own statements (a game row read and
//! advanced, the position index moved on, an event inserted per
//! transaction), which shows how much of the gap to the one-row baseline
//! is the database's part of a move.
//!
//! The baseline for SQLite: the same number of threads committing one-row
//! transactions through the server's own connection set-up (WAL,
//! `synchronous = FULL`); for Postgres: pgbench with one-row INSERT
//! transactions and as many clients.

mod common;

use std::{
    collections::{BTreeSet, HashMap},
    process::Command,
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use common::{
    Server, move_rows,
    players::{Sample, Seat, drive, new_game, playable_line, seats, send},
    process::{TICK, process_cpu, process_times},
    round_trips::RoundTrips,
};
use diesel::{Connection, PgConnection, RunQueryDsl};
use kingpost_api::{db::write_transaction, server::open_database};
use rand::{SeedableRng, rngs::SmallRng};
use serde_json::json;

/// Each game is played along a prepared line this long, then a new one
/// starts: long enough to measure the cost of a move at ply 300.
const LINE_PLIES: usize = 330;
const EARLY_PLIES: std::ops::Range<usize> = 0..40;
const LATE_PLIES: std::ops::Range<usize> = 280..320;

struct Options {
    seconds: u64,
    clients: usize,
    postgres: String,
    /// `sqlite` or `postgres`: run on that database alone.
    only: Option<String>,
    /// `--pin`: on Postgres, the servers on core 0 and Postgres on core 1.
    pin: bool,
}

fn options() -> Options {
    let mut options = Options {
        seconds: 10,
        clients: 8,
        postgres: std::env::var("KINGPOST_BENCH_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned()),
        only: None,
        pin: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    options.pin = args.iter().any(|a| a == "--pin");
    for pair in args.windows(2) {
        match pair[0].as_str() {
            "--seconds" => options.seconds = pair[1].parse().expect("--seconds <n>"),
            "--clients" => options.clients = pair[1].parse().expect("--clients <n>"),
            "--only" => options.only = Some(pair[1].clone()),
            _ => {}
        }
    }
    options
}

struct Run {
    moves_per_second: f64,
    errors: usize,
    /// Sorted latencies of the answered moves.
    latencies: Vec<Duration>,
    samples: Vec<Sample>,
}

impl Run {
    fn percentile(&self, p: f64) -> f64 {
        let i =
            ((self.latencies.len() as f64 * p).ceil() as usize).clamp(1, self.latencies.len()) - 1;
        self.latencies[i].as_secs_f64() * 1000.0
    }

    fn mean_ms(&self, plies: std::ops::Range<usize>) -> f64 {
        let picked: Vec<Duration> = self
            .samples
            .iter()
            .filter(|(ply, _)| plies.contains(ply))
            .filter_map(|(_, latency)| *latency)
            .collect();
        picked.iter().sum::<Duration>().as_secs_f64() * 1000.0 / picked.len().max(1) as f64
    }
}

fn run(
    bases: &[String],
    seats: &[Seat],
    lines: &[Vec<String>],
    seconds: u64,
    rate: Option<f64>,
) -> Run {
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    // With a total rate, each client sends its share, the clients' first
    // requests spread over one period.
    let pace = rate.map(|rate| Duration::from_secs_f64(seats.len() as f64 / rate));
    let samples: Vec<Sample> = std::thread::scope(|scope| {
        let handles: Vec<_> = seats
            .iter()
            .enumerate()
            .map(|(i, seat)| {
                let offset = &lines[i % lines.len()..];
                scope.spawn(move || {
                    if let Some(pace) = pace {
                        std::thread::sleep(pace.mul_f64(i as f64 / seats.len() as f64));
                    }
                    drive(bases, seat, offset, &|| Instant::now() >= until, pace)
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let elapsed = start.elapsed().as_secs_f64();
    let mut latencies: Vec<Duration> = samples.iter().filter_map(|(_, l)| *l).collect();
    latencies.sort();
    Run {
        moves_per_second: latencies.len() as f64 / elapsed,
        errors: samples.iter().filter(|(_, l)| l.is_none()).count(),
        latencies,
        samples,
    }
}

/// One-row durable transactions per second on SQLite with the server's own
/// connection settings, from `threads` threads.
fn sqlite_baseline(url: &str, threads: usize, seconds: u64) -> f64 {
    let pool = open_database(url).unwrap();
    let mut conn = pool.get().unwrap();
    diesel::sql_query("CREATE TABLE bench_commits (id INTEGER PRIMARY KEY, at BIGINT NOT NULL)")
        .execute(&mut **conn)
        .unwrap();
    drop(conn);
    let commits = AtomicUsize::new(0);
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut conn = pool.get().unwrap();
                while Instant::now() < until {
                    write_transaction(&mut conn, |conn| {
                        diesel::sql_query("INSERT INTO bench_commits (at) VALUES (1)").execute(conn)
                    })
                    .unwrap();
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    commits.into_inner() as f64 / start.elapsed().as_secs_f64()
}

/// One-row INSERT transactions per second by pgbench with `clients`
/// clients (synchronous commit, as the server runs).
fn postgres_baseline(url: &str, clients: usize, seconds: u64) -> f64 {
    let mut conn = PgConnection::establish(url).unwrap();
    diesel::sql_query("CREATE TABLE bench_commits (id BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL)")
        .execute(&mut conn)
        .unwrap();
    let script = std::env::temp_dir().join(format!("kingpost-bench-{}.sql", std::process::id()));
    std::fs::write(&script, "INSERT INTO bench_commits (at) VALUES (1);\n").unwrap();
    let output = Command::new("pgbench")
        .args([
            "-n",
            "-j",
            "2",
            "-c",
            &clients.to_string(),
            "-T",
            &seconds.to_string(),
            "-f",
        ])
        .arg(&script)
        .arg(url)
        .output()
        .expect("pgbench (from the Postgres client tools) on the PATH");
    let _ = std::fs::remove_file(&script);
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|line| line.strip_prefix("tps = "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|tps| tps.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "pgbench said:\n{text}{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
}

/// CPU time used so far, read from `/proc`: by the servers, by this
/// process (the clients), by Postgres's processes, and by the machine.
struct CpuUse {
    servers: Duration,
    /// The part of `servers` spent in the kernel (writes, syncs, sockets).
    servers_system: Duration,
    clients: Duration,
    postgres: Duration,
    machine_busy: Duration,
    machine_steal: Duration,
    at: Instant,
}

impl CpuUse {
    fn now(servers: &[u32]) -> CpuUse {
        let postgres = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| process_cpu(entry.file_name().to_str()?, Some("postgres")))
            .sum();
        // The first line of /proc/stat: user nice system idle iowait irq softirq steal.
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let ticks: Vec<u32> = stat
            .lines()
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .skip(1)
            .filter_map(|t| t.parse().ok())
            .collect();
        let tick = |i: usize| ticks.get(i).copied().unwrap_or(0);
        let (user, system): (Vec<Duration>, Vec<Duration>) = servers
            .iter()
            .filter_map(|pid| process_times(&pid.to_string(), None))
            .unzip();
        let servers_system: Duration = system.iter().sum();
        CpuUse {
            servers: user.iter().sum::<Duration>() + servers_system,
            servers_system,
            clients: process_cpu("self", None).unwrap_or_default(),
            postgres,
            machine_busy: TICK * (tick(0) + tick(1) + tick(2) + tick(5) + tick(6)),
            machine_steal: TICK * tick(7),
            at: Instant::now(),
        }
    }

    /// What a run between `self` and `after` used per move, in µs.
    fn print_per_move(&self, after: &CpuUse, moves: usize) {
        let per_move = |before: Duration, after: Duration| {
            after.saturating_sub(before).as_secs_f64() * 1e6 / moves.max(1) as f64
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let had = after.at.duration_since(self.at).as_secs_f64() * 1e6 * cores as f64
            / moves.max(1) as f64;
        println!(
            "  CPU per move, µs: servers {:.0} (kernel {:.0}), clients {:.0}, Postgres {:.0}; machine busy {:.0}, stolen {:.0}, of {had:.0} on {cores} cores",
            per_move(self.servers, after.servers),
            per_move(self.servers_system, after.servers_system),
            per_move(self.clients, after.clients),
            per_move(self.postgres, after.postgres),
            per_move(self.machine_busy, after.machine_busy),
            per_move(self.machine_steal, after.machine_steal),
        );
    }
}

fn print_run(label: &str, run: &Run, baseline: f64) {
    println!(
        "{label:<34} {:>9.0} {:>7.2} {:>8.2} {:>8.2} {:>8.2} {:>7}",
        run.moves_per_second,
        run.moves_per_second / baseline,
        run.percentile(0.50),
        run.percentile(0.95),
        run.percentile(0.99),
        run.errors
    );
}

/// Sets the cores `pid` (all its threads) may run on, by `taskset`.
fn run_on(pid: u32, cores: &str) {
    let status = Command::new("taskset")
        .args(["-a", "-p", "-c", cores, &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("taskset (util-linux) runs");
    assert!(status.success(), "taskset -c {cores} -p {pid}");
}

/// The processes of the local Postgres: the postmaster and its children
/// (a backend forked later inherits the postmaster's cores).
fn postgres_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let comm = std::fs::read_to_string(entry.path().join("comm")).ok()?;
            (comm.trim() == "postgres").then_some(pid)
        })
        .collect()
}

/// With `--pin`, while it lives: Postgres on core 1, so that the servers
/// (put on core 0 as they start) and the database do not take each other's
/// core, and a figure with more instances means something on two cores.
/// The benchmark's own clients are not pinned. Dropped, Postgres gets every
/// core back.
struct PostgresPinned;

impl PostgresPinned {
    fn new() -> PostgresPinned {
        for pid in postgres_pids() {
            run_on(pid, "1");
        }
        PostgresPinned
    }
}

impl Drop for PostgresPinned {
    fn drop(&mut self) {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for pid in postgres_pids() {
            run_on(pid, &format!("0-{}", cores - 1));
        }
    }
}

/// The benchmark on one database, `instances` counts of servers over it.
fn bench_database(
    name: &str,
    url: &str,
    baseline: f64,
    instance_counts: &[usize],
    options: &Options,
    lines: &[Vec<String>],
) {
    let run_id = format!("m{}{}", std::process::id(), &name[..1]);
    println!(
        "\n{name}: baseline {baseline:.0} one-row durable transactions/s ({} clients)",
        options.clients
    );
    println!(
        "{:<34} {:>9} {:>7} {:>8} {:>8} {:>8} {:>7}",
        "run", "moves/s", "ratio", "p50 ms", "p95 ms", "p99 ms", "errors"
    );
    let pinned = (options.pin && name == "Postgres").then(|| {
        println!("pinned: the servers on core 0, Postgres on core 1, the clients on either");
        PostgresPinned::new()
    });
    for &instances in instance_counts {
        let servers: Vec<Server> = (0..instances)
            .map(|_| Server::start(url, &["--no-rate-limits"]))
            .collect();
        if pinned.is_some() {
            for server in &servers {
                run_on(server.pid(), "0");
            }
        }
        let bases: Vec<String> = servers.iter().map(|s| s.base.clone()).collect();
        let seats = seats(&bases[0], options.clients, &format!("{run_id}i{instances}"));
        let pids: Vec<u32> = servers.iter().map(Server::pid).collect();
        let before = CpuUse::now(&pids);
        let peak = run(&bases, &seats, lines, options.seconds, None);
        let after = CpuUse::now(&pids);
        print_run(&format!("peak, {instances} instance(s)"), &peak, baseline);
        before.print_per_move(&after, peak.latencies.len());
        if instances == 1 {
            let half = run(
                &bases,
                &seats,
                lines,
                options.seconds,
                Some(peak.moves_per_second / 2.0),
            );
            print_run("half of the peak, 1 instance", &half, baseline);
            let (early, late) = (peak.mean_ms(EARLY_PLIES), peak.mean_ms(LATE_PLIES));
            println!(
                "cost by ply (peak run): mean {early:.2} ms at plies 1-40, {late:.2} ms at plies 281-320, ratio {:.2}",
                late / early
            );
            // Next to the peak in time, on this machine whose rate drifts
            // from one run to the next: on the games just played, which
            // no later run uses.
            let rows = move_rows::baseline(url, options.clients, options.seconds, false);
            println!(
                "the same rows written directly (a game row read and advanced a packed move, the position index moved on, an event inserted): \
                 {rows:.0} transactions/s, {:.2} of the baseline; the 1-instance peak is {:.2} of it",
                rows / baseline,
                peak.moves_per_second / rows
            );
        }
    }
    if name == "Postgres" {
        let (moves, trips, statements) = round_trips_per_move(url, lines, &format!("{run_id}rt"));
        println!(
            "round trips to Postgres: {:.1} a move request ({trips} for {moves} moves of one game, \
             counted by a proxy; the server's background work falls in them too)",
            trips as f64 / moves as f64
        );
        let parsed: u64 = statements.iter().map(|s| s.parsed).sum();
        println!(
            "statements Postgres parsed during those moves: {:.2} a move (a statement prepared \
             once per connection is parsed once); what they ran, a move:",
            parsed as f64 / moves as f64
        );
        for statement in &statements {
            println!(
                "  {:>5.2} run, {:>5.2} parsed: {}",
                statement.run as f64 / moves as f64,
                statement.parsed as f64 / moves as f64,
                statement.text.chars().take(110).collect::<String>()
            );
        }
    }
}

/// A statement a server sent Postgres, and how often in some time.
struct Statement {
    text: String,
    run: u64,
    parsed: u64,
}

/// The round trips a server makes to Postgres while one game is played
/// along a line: the moves played, the round trips counted, and the
/// statements run meanwhile, most often first.
fn round_trips_per_move(
    url: &str,
    lines: &[Vec<String>],
    run: &str,
) -> (usize, u64, Vec<Statement>) {
    const MOVES: usize = 100;
    let proxy = RoundTrips::start(url);
    let server = Server::start(&proxy.url, &["--no-rate-limits"]);
    let seat = &seats(&server.base, 1, run)[0];
    let client = reqwest::blocking::Client::new();
    let game = new_game(&client, &server.base, seat).expect("a game");
    let (before, parsed_before, run_before) = (proxy.count(), proxy.parsed(), proxy.run());
    for (ply, uci) in lines[0].iter().take(MOVES).enumerate() {
        let token = if ply % 2 == 0 {
            &seat.white.1
        } else {
            &seat.black.1
        };
        let url = format!("{}/games/{game}/moves", server.base);
        send(
            &client,
            &url,
            Some(token),
            &json!({"move": uci, "ply": ply}),
        )
        .expect("a move");
    }
    let since = |now: HashMap<String, u64>, earlier: &HashMap<String, u64>| {
        now.into_iter()
            .map(|(text, n)| {
                let n = n - earlier.get(&text).copied().unwrap_or(0);
                (text, n)
            })
            .filter(|(_, n)| *n > 0)
            .collect::<HashMap<_, _>>()
    };
    let (run, parsed) = (
        since(proxy.run(), &run_before),
        since(proxy.parsed(), &parsed_before),
    );
    let mut statements: Vec<Statement> = run
        .keys()
        .chain(parsed.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|text| Statement {
            text: text.clone(),
            run: run.get(text).copied().unwrap_or(0),
            parsed: parsed.get(text).copied().unwrap_or(0),
        })
        .collect();
    statements.sort_by(|a, b| b.run.cmp(&a.run).then_with(|| a.text.cmp(&b.text)));
    (MOVES, proxy.count() - before, statements)
}

fn main() {
    let options = options();
    let mut rng = SmallRng::seed_from_u64(7);
    let lines: Vec<Vec<String>> = (0..16)
        .map(|_| playable_line(&mut rng, LINE_PLIES))
        .collect();
    println!(
        "move requests vs the database's durable commit rate: {} clients, {} s a run, release build",
        options.clients, options.seconds
    );

    let wanted = |name: &str| options.only.as_deref().is_none_or(|only| only == name);
    if wanted("sqlite") {
        sqlite(&options, &lines);
    }
    if wanted("postgres") {
        postgres(&options, &lines);
    }
}

fn sqlite(options: &Options, lines: &[Vec<String>]) {
    let dir = std::env::temp_dir().join(format!("kingpost-moves-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let baseline = sqlite_baseline(
        &dir.join("baseline.sqlite3").display().to_string(),
        options.clients,
        options.seconds,
    );
    let url = dir.join("moves.sqlite3").display().to_string();
    bench_database("SQLite", &url, baseline, &[1], options, lines);
    let _ = std::fs::remove_dir_all(&dir);
}

fn postgres(options: &Options, lines: &[Vec<String>]) {
    let Ok(mut admin) = PgConnection::establish(&options.postgres) else {
        println!("\nPostgres: not reachable at {}, skipped", options.postgres);
        return;
    };
    let schema = format!("bench_moves_{}", std::process::id());
    diesel::sql_query(format!("CREATE SCHEMA {schema}"))
        .execute(&mut admin)
        .unwrap();
    let separator = if options.postgres.contains('?') {
        '&'
    } else {
        '?'
    };
    let url = format!(
        "{}{separator}options=-csearch_path%3D{schema}",
        options.postgres
    );
    let baseline = postgres_baseline(&url, options.clients, options.seconds);
    bench_database("Postgres", &url, baseline, &[1, 2, 4], options, lines);
    diesel::sql_query(format!("DROP SCHEMA {schema} CASCADE"))
        .execute(&mut admin)
        .unwrap();
}
