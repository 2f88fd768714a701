//! Other players beside one client's heaviest load: the latency of moves
//! played at a steady pace by other players while one client runs each of
//! the loads that used to stall them, against the same moves with nothing
//! else running, in the same run (ratios: this machine is shared); and the
//! time a webhook delivery of one account takes while another account's
//! backlog of deliveries waits on endpoints that never answer.
//!
//! `cargo bench -p kingpost-api --bench neighbours` (`-- sqlite` or
//! `-- postgres` for one database; `--games <n>` for the import and the
//! collection, 10,000 by default, 0 for none of the archive's loads; `--seconds <s>` for the timed loads, 10
//! by default); Postgres from `KINGPOST_BENCH_DATABASE_URL` (default the
//! local `test` database, in a fresh schema dropped at the end). With
//! `--read-database-url <url>` (a streaming standby of that database:
//! `scripts/pg_replicas.py up DIR` makes a primary and one), the server
//! sends its reads that may lag there, and the explorer and exports run on
//! the replica while the players move on the primary. With `--apart` as
//! well, this machine's two CPUs stand for two machines: the primary
//! (pinned by `scripts/pg_replicas.py up DIR --apart`), its instance and
//! the players on CPU 0; the replica, an instance of its own to which the
//! explorer and exports are sent (as a proxy routes heavy reads), and the
//! client sending them on CPU 1. The loads, each from one client:
//!
//! - idle: nothing but the players;
//! - import: one maximal PGN import (10,000 games in one request);
//! - explorer: eight explorer requests at a time on the start position;
//! - exports: four whole `search/games.pgn` exports at a time;
//! - delete: the deletion of the imported collection;
//! - swiss start: the last entry of a Swiss of `--swiss <n>` players
//!   (1,000 by default; 0 for none), which starts it: its first round
//!   paired and its games written;
//! - swiss round: the last game of that round ending, which pairs the
//!   second (the slowest to pair) and writes its games.
//!
//! The explorer and exports alternate with idle windows as long as theirs
//! (`--windows <n>`, 4 by default, over the `--seconds`), and their ratios
//! are to those windows: the machine's other tenants come and go, and the
//! baseline then shares the load's minutes. For each: the players' moves
//! answered, their p50 and p99 in ms, each against idle's, and what became
//! of the load's own requests.

mod common;

use std::{
    io::{BufRead, BufReader, Read},
    net::TcpListener,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use common::{
    Server,
    players::{Sample, Seat, drive, playable_line, post, seats, send, sign_up},
    process::pin_to_cpu,
    seeding::pgn_sample,
    wants_database,
};
use diesel::{Connection, PgConnection, RunQueryDsl};
use kingpost_api::clock::{Clock, DAY, SystemClock, rfc3339};
use rand::{SeedableRng, rngs::SmallRng};
use serde_json::{Value, json};

/// Each player sends a move this often: a steady light load, so that what
/// the percentiles show is the loads' effect, not the players' own.
const PACE: Duration = Duration::from_millis(20);
const PLAYERS: usize = 2;
const START_FEN: &str =
    "rnbqkbnr%2Fpppppppp%2F8%2F8%2F8%2F8%2FPPPPPPPP%2FRNBQKBNR%20w%20KQkq%20-%200%201";

struct Options {
    games: usize,
    seconds: f64,
    swiss: usize,
    postgres: String,
    /// A replica of `postgres`, for the reads that may lag.
    replica: Option<String>,
    /// Two machines on this one's two CPUs (with a replica only).
    apart: bool,
    /// Windows the explorer and exports loads alternate with idle ones in.
    windows: usize,
    args: Vec<String>,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut options = Options {
        games: 10_000,
        seconds: 10.0,
        swiss: 1_000,
        postgres: std::env::var("KINGPOST_BENCH_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned()),
        replica: None,
        apart: args.iter().any(|a| a == "--apart"),
        windows: 4,
        args: args.clone(),
    };
    for pair in args.windows(2) {
        match pair[0].as_str() {
            "--games" => options.games = pair[1].parse().expect("--games <n>"),
            "--seconds" => options.seconds = pair[1].parse().expect("--seconds <s>"),
            "--swiss" => options.swiss = pair[1].parse().expect("--swiss <players>"),
            "--windows" => options.windows = pair[1].parse().expect("--windows <n>"),
            "--read-database-url" => options.replica = Some(pair[1].clone()),
            _ => {}
        }
    }
    assert!(
        !options.apart || options.replica.is_some(),
        "--apart stands the replica's machine on CPU 1: it needs --read-database-url"
    );
    options
}

/// The players' moves during one load, and what the load reported.
struct Phase {
    name: &'static str,
    latencies: Vec<Duration>,
    errors: usize,
    load: String,
    /// The moves of the idle windows the load alternated with, when it
    /// did: its ratios are to them rather than to the first idle phase.
    beside: Option<Box<Phase>>,
}

impl Phase {
    fn empty(name: &'static str) -> Phase {
        Phase {
            name,
            latencies: Vec::new(),
            errors: 0,
            load: String::new(),
            beside: None,
        }
    }

    /// Adds another window's moves to these.
    fn absorb(&mut self, other: Phase) {
        self.latencies.extend(other.latencies);
        self.latencies.sort();
        self.errors += other.errors;
    }

    fn percentile(&self, p: f64) -> f64 {
        if self.latencies.is_empty() {
            return f64::NAN;
        }
        let i = ((self.latencies.len() as f64 * p).ceil() as usize).clamp(1, self.latencies.len());
        self.latencies[i - 1].as_secs_f64() * 1000.0
    }
}

/// The players at their boards, on the server they play on.
struct Table<'a> {
    base: &'a str,
    players: &'a [Seat],
    lines: &'a [Vec<String>],
    /// The CPU the players' clients are kept on, if any.
    cpu: Option<usize>,
    /// Databases to checkpoint before each load: Postgres spreads a
    /// checkpoint's writes over minutes, and those a load leaves behind
    /// are its own, not the next one's.
    checkpoint: Vec<String>,
}

impl Table<'_> {
    /// Runs `load` while the players play; the players' samples and the
    /// load's own report.
    fn during(&self, name: &'static str, load: impl FnOnce() -> String) -> Phase {
        for url in &self.checkpoint {
            let mut database = PgConnection::establish(url).expect("the database to checkpoint");
            diesel::sql_query("CHECKPOINT")
                .execute(&mut database)
                .expect("a checkpoint");
        }
        let done = AtomicBool::new(false);
        let bases = [self.base.to_owned()];
        let (samples, report): (Vec<Sample>, String) = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .players
                .iter()
                .enumerate()
                .map(|(i, seat)| {
                    let (bases, done) = (&bases, &done);
                    scope.spawn(move || {
                        if let Some(cpu) = self.cpu {
                            pin_to_cpu(cpu).expect("a CPU for the players");
                        }
                        let offset = &self.lines[i % self.lines.len()..];
                        drive(
                            bases,
                            seat,
                            offset,
                            &|| done.load(Ordering::SeqCst),
                            Some(PACE),
                        )
                    })
                })
                .collect();
            // The players settle in before the load starts.
            std::thread::sleep(Duration::from_millis(300));
            let report = load();
            done.store(true, Ordering::SeqCst);
            let samples = handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect();
            (samples, report)
        });
        let mut latencies: Vec<Duration> = samples.iter().filter_map(|(_, l)| *l).collect();
        latencies.sort();
        Phase {
            name,
            errors: samples.iter().filter(|(_, l)| l.is_none()).count(),
            latencies,
            load: report,
            beside: None,
        }
    }

    /// A load run `seconds` in all, in `windows` windows, each after a window
    /// of nothing as long: on a machine whose other tenants come and go, the
    /// baseline then shares the load's minutes. `load` runs one window of
    /// the seconds it is given, counting its requests' statuses.
    fn alternating(
        &self,
        name: &'static str,
        seconds: f64,
        windows: usize,
        load: impl Fn(f64, &Mutex<Vec<u16>>),
    ) -> Phase {
        let window = seconds / windows as f64;
        let statuses = Mutex::new(Vec::new());
        let (mut idle, mut loaded) = (Phase::empty("idle"), Phase::empty(name));
        for _ in 0..windows {
            let quiet = self.during("idle", || {
                std::thread::sleep(Duration::from_secs_f64(window));
                String::new()
            });
            idle.absorb(quiet);
            let busy = self.during(name, || {
                load(window, &statuses);
                String::new()
            });
            loaded.absorb(busy);
        }
        loaded.load = tally(&statuses);
        loaded.beside = Some(Box::new(idle));
        loaded
    }
}

/// A client that waits as long as a bulk request takes.
fn patient_client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(3600))
        .build()
        .unwrap()
}

/// Statuses of the load's requests, as `200×n 429×m`.
fn tally(statuses: &Mutex<Vec<u16>>) -> String {
    let mut statuses = statuses.lock().unwrap().clone();
    statuses.sort();
    let mut out = Vec::new();
    for status in statuses
        .iter()
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
    {
        let n = statuses.iter().filter(|s| **s == status).count();
        out.push(format!("{status}×{n}"));
    }
    out.join(" ")
}

/// `threads` clients of one address GETting `path` (read whole) again and
/// again for `seconds`, their answers' statuses noted in `statuses`.
fn hammer(
    base: &str,
    token: &str,
    path: &str,
    threads: usize,
    seconds: f64,
    statuses: &Mutex<Vec<u16>>,
) {
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let client = reqwest::blocking::Client::new();
                while Instant::now() < until {
                    let answer = client
                        .get(format!("{base}{path}"))
                        .bearer_auth(token)
                        .send();
                    let status = match answer {
                        Ok(answer) => {
                            let status = answer.status().as_u16();
                            let _ = answer.bytes();
                            if status == 429 || status == 503 {
                                // As a client told to wait does, briefly.
                                std::thread::sleep(Duration::from_millis(100));
                            }
                            status
                        }
                        Err(_) => 0,
                    };
                    statuses.lock().unwrap().push(status);
                }
            });
        }
    });
}

fn bench(name: &str, url: &str, replica: Option<&str>, options: &Options, lines: &[Vec<String>]) {
    let mut args = vec!["--no-rate-limits", "--allow-private-webhooks"];
    if let Some(replica) = replica {
        args.extend(["--read-database-url", replica]);
    }
    // Apart: CPU 0 stands for the primary's machine (its instance and the
    // players), CPU 1 for the replica's (an instance of its own serving the
    // heavy reads, and the client sending them).
    let apart = options.apart && replica.is_some();
    let (players_cpu, readers_cpu) = match apart {
        true => (Some(0), Some(1)),
        false => (None, None),
    };
    if let Some(cpu) = readers_cpu {
        pin_to_cpu(cpu).expect("a CPU for the loads");
    }
    let server = Server::start_on(players_cpu, url, &args);
    let reader = apart.then(|| Server::start_on(readers_cpu, url, &args));
    let base = server.base.clone();
    let read_base = reader.as_ref().map_or(&base, |r| &r.base).clone();
    let players = seats(&base, PLAYERS, "p");
    let table = Table {
        base: &base,
        players: &players,
        lines,
        cpu: players_cpu,
        checkpoint: match url.starts_with("postgres") {
            true => std::iter::once(url)
                .chain(replica)
                .map(str::to_owned)
                .collect(),
            false => Vec::new(),
        },
    };
    let client = reqwest::blocking::Client::new();
    let (_, loader) = sign_up(&client, &base, "loader");
    // As many games as fit in the largest request.
    let pgn = pgn_sample(options.games, 8 * 1024 * 1024, false);
    let (seconds, windows) = (options.seconds, options.windows);
    let collection = Mutex::new(String::new());

    let mut phases = vec![table.during("idle", || {
        std::thread::sleep(Duration::from_secs_f64(seconds));
        String::new()
    })];
    if options.games > 0 {
        phases.push(table.during("import", || {
            let started = Instant::now();
            let answer = patient_client()
                .post(format!("{base}/imports?collection=big"))
                .bearer_auth(&loader)
                .header("content-type", "application/x-chess-pgn")
                .body(pgn.clone())
                .send()
                .unwrap();
            let status = answer.status().as_u16();
            let report: Value = answer.json().unwrap_or(Value::Null);
            *collection.lock().unwrap() = report["collection_id"].as_str().unwrap_or("").to_owned();
            format!(
                "{status}: {} games in {:.1} s",
                report["imported"],
                started.elapsed().as_secs_f64()
            )
        }));
        let explorer = format!("/explorer?rules=standard&fen={START_FEN}");
        let explorer = &explorer;
        phases.push(
            table.alternating("explorer x8", seconds, windows, |window, statuses| {
                hammer(&read_base, &loader, explorer, 8, window, statuses)
            }),
        );
        phases.push(
            table.alternating("exports x4", seconds, windows, |window, statuses| {
                hammer(
                    &read_base,
                    &loader,
                    "/search/games.pgn",
                    4,
                    window,
                    statuses,
                )
            }),
        );
        let collection = collection.lock().unwrap().clone();
        phases.push(table.during("delete", || {
            let started = Instant::now();
            let answer = patient_client()
                .delete(format!("{base}/collections/{collection}"))
                .bearer_auth(&loader)
                .send()
                .unwrap();
            format!(
                "{} in {:.1} s",
                answer.status().as_u16(),
                started.elapsed().as_secs_f64()
            )
        }));
    }

    if options.swiss > 0 {
        let swiss = Swiss::entered(&base, options.swiss);
        phases.push(table.during("swiss start", || swiss.fill()));
        swiss.end_round_but_one(1);
        phases.push(table.during("swiss round", || swiss.end_last(1)));
    }

    println!(
        "\n{name}: {PLAYERS} players, a move each every {} ms{}",
        PACE.as_millis(),
        match (replica, apart) {
            (Some(_), true) => {
                "; the reads that may lag on a replica; explorer and exports through an \
                 instance of their own; primary, its instance and the players on CPU 0, \
                 replica, reading instance and loads on CPU 1"
            }
            (Some(_), false) => "; the reads that may lag on a replica",
            (None, _) => "",
        }
    );
    println!(
        "{:<12} {:>6} {:>7} {:>8} {:>8} {:>8} {:>8}  load",
        "load", "moves", "errors", "p50 ms", "p99 ms", "p50 ×", "p99 ×"
    );
    let (idle50, idle99) = (phases[0].percentile(0.5), phases[0].percentile(0.99));
    for phase in &phases {
        let (p50, p99) = (phase.percentile(0.5), phase.percentile(0.99));
        let (idle50, idle99) = match &phase.beside {
            Some(idle) => (idle.percentile(0.5), idle.percentile(0.99)),
            None => (idle50, idle99),
        };
        println!(
            "{:<12} {:>6} {:>7} {:>8.2} {:>8.2} {:>8.2} {:>8.2}  {}",
            phase.name,
            phase.latencies.len(),
            phase.errors,
            p50,
            p99,
            p50 / idle50,
            p99 / idle99,
            phase.load
        );
        if let Some(idle) = &phase.beside {
            println!(
                "{:<12} {:>6} {:>7} {:>8.2} {:>8.2}  the idle windows it alternated with",
                "",
                idle.latencies.len(),
                idle.errors,
                idle50,
                idle99
            );
        }
    }
    webhooks(&base, &client, &players);
}

/// A Swiss of many players, all but the last entered.
struct Swiss {
    base: String,
    id: String,
    /// Each player's name and token, by name.
    tokens: std::collections::BTreeMap<String, String>,
    last: String,
}

impl Swiss {
    fn entered(base: &str, count: usize) -> Swiss {
        let names: Vec<String> = (0..count).map(|i| format!("swiss{i:04}")).collect();
        let tokens = Mutex::new(std::collections::BTreeMap::new());
        // Two clients at a time: the sign-ups' password hashing is most of it.
        std::thread::scope(|scope| {
            for half in names.chunks(count.div_ceil(2)) {
                let tokens = &tokens;
                scope.spawn(move || {
                    let client = reqwest::blocking::Client::new();
                    for name in half {
                        let (name, token) = sign_up(&client, base, name);
                        tokens.lock().unwrap().insert(name, token);
                    }
                });
            }
        });
        let tokens = tokens.into_inner().unwrap();
        let client = reqwest::blocking::Client::new();
        let swiss = post(
            &client,
            &format!("{base}/tournaments"),
            Some(&tokens[&names[0]]),
            &json!({"name": "Bench Swiss", "rules": "standard", "days_per_move": 3,
                    "format": "swiss", "capacity": count, "rounds": 3,
                    "signup_deadline": rfc3339(SystemClock.now() + 30 * DAY)}),
        )
        .expect("a Swiss");
        let id = swiss["id"].as_str().unwrap().to_owned();
        for name in &names[..count - 1] {
            send(
                &client,
                &format!("{base}/tournaments/{id}/join"),
                Some(&tokens[name]),
                &json!({}),
            )
            .expect("a join");
        }
        Swiss {
            base: base.to_owned(),
            id,
            tokens,
            last: names[count - 1].clone(),
        }
    }

    /// The last entry, which starts it: what it took.
    fn fill(&self) -> String {
        let started = Instant::now();
        let answer = send(
            &reqwest::blocking::Client::new(),
            &format!("{}/tournaments/{}/join", self.base, self.id),
            Some(&self.tokens[&self.last]),
            &json!({}),
        );
        let took = started.elapsed().as_secs_f64();
        format!(
            "{}: {} players, {} games in {took:.2} s",
            if answer.is_ok() { "200" } else { "failed" },
            self.tokens.len(),
            self.games(1).len(),
        )
    }

    /// A round's games: (game, White's name).
    fn games(&self, round: i64) -> Vec<(String, String)> {
        let view: Value = reqwest::blocking::Client::new()
            .get(format!("{}/tournaments/{}", self.base, self.id))
            .send()
            .unwrap()
            .json()
            .unwrap();
        view["games"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["round"] == round)
            .map(|g| {
                (
                    g["game_id"].as_str().unwrap().to_owned(),
                    g["white"]["username"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    fn resign(&self, client: &reqwest::blocking::Client, (game, white): &(String, String)) {
        send(
            client,
            &format!("{}/games/{game}/resign", self.base),
            Some(&self.tokens[white]),
            &json!({}),
        )
        .expect("a resignation");
    }

    /// Every game of the round but its last resigned by White.
    fn end_round_but_one(&self, round: i64) {
        let games = self.games(round);
        let client = reqwest::blocking::Client::new();
        for game in &games[..games.len() - 1] {
            self.resign(&client, game);
        }
    }

    /// The round's last game resigned, which pairs the next: what it took.
    fn end_last(&self, round: i64) -> String {
        let games = self.games(round);
        let started = Instant::now();
        self.resign(&reqwest::blocking::Client::new(), games.last().unwrap());
        let took = started.elapsed().as_secs_f64();
        format!(
            "round {} paired, {} games, in {took:.2} s",
            round + 1,
            self.games(round + 1).len(),
        )
    }
}

/// A local endpoint that answers every request with 200, and when each
/// came.
fn receiver() -> (String, Arc<Mutex<Vec<Instant>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let arrived = Arc::new(Mutex::new(Vec::new()));
    let log = arrived.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock().unwrap().push(Instant::now());
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (url, arrived)
}

/// A local endpoint that takes connections and never answers.
fn black_hole() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    url
}

const SECRET: &str = "a shared secret of some length";

/// The time from a challenge to its webhook delivery's arrival, for
/// `samples` challenges one after another.
fn delivery_times(
    base: &str,
    client: &reqwest::blocking::Client,
    from: &str,
    arrived: &Mutex<Vec<Instant>>,
    samples: usize,
) -> Vec<f64> {
    let mut times = Vec::new();
    for _ in 0..samples {
        let before = arrived.lock().unwrap().len();
        let sent = Instant::now();
        let challenge = post(
            client,
            &format!("{base}/challenges"),
            Some(from),
            &json!({"rules": "standard", "days_per_move": 3, "opponent": "hooked"}),
        )
        .expect("a challenge");
        let deadline = sent + Duration::from_secs(120);
        let at = loop {
            if let Some(at) = arrived.lock().unwrap().get(before) {
                break Some(*at);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        times.push(at.map_or(f64::INFINITY, |at| (at - sent).as_secs_f64()));
        let id = challenge["id"].as_str().unwrap();
        let _ = client
            .delete(format!("{base}/challenges/{id}"))
            .bearer_auth(from)
            .send();
    }
    times
}

/// One account's delivery time, idle and beside another's backlog: ten
/// webhooks at endpoints that never answer, and 600 deliveries queued.
fn webhooks(base: &str, client: &reqwest::blocking::Client, players: &[Seat]) {
    const SAMPLES: usize = 5;
    let (url, arrived) = receiver();
    let (_, hooked) = sign_up(client, base, "hooked");
    post(
        client,
        &format!("{base}/webhooks"),
        Some(&hooked),
        &json!({"url": url, "secret": SECRET, "events": ["challenge_received"]}),
    )
    .expect("a webhook");
    let challenger = &players[0].white.1;
    let idle = delivery_times(base, client, challenger, &arrived, SAMPLES);

    let (_, noisy) = sign_up(client, base, "noisy");
    for _ in 0..10 {
        post(
            client,
            &format!("{base}/webhooks"),
            Some(&noisy),
            &json!({"url": black_hole(), "secret": SECRET, "events": ["challenge_received"]}),
        )
        .expect("a webhook");
    }
    // Sixty challenges to the noisy account: 600 deliveries.
    let challengers: Vec<String> = (0..4)
        .map(|i| sign_up(client, base, &format!("challenger{i}")).1)
        .collect();
    for n in 0..60 {
        send(
            client,
            &format!("{base}/challenges"),
            Some(&challengers[n % challengers.len()]),
            &json!({"rules": "standard", "days_per_move": 3, "opponent": "noisy"}),
        )
        .expect("a challenge");
    }
    std::thread::sleep(Duration::from_secs(2));
    let beside = delivery_times(base, client, challenger, &arrived, SAMPLES);
    let median = |times: &[f64]| {
        let mut sorted = times.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    let max = |times: &[f64]| times.iter().copied().fold(0.0, f64::max);
    println!(
        "webhooks: one account's delivery, {SAMPLES} in turn: idle median {:.2} s (max {:.2}); \
         beside another's 600 deliveries to 10 silent endpoints median {:.2} s (max {:.2}), ×{:.2}",
        median(&idle),
        max(&idle),
        median(&beside),
        max(&beside),
        median(&beside) / median(&idle)
    );
}

fn main() {
    let options = options();
    let mut rng = SmallRng::seed_from_u64(3);
    let lines: Vec<Vec<String>> = (0..8).map(|_| playable_line(&mut rng, 200)).collect();
    if wants_database(&options.args, "sqlite") {
        let dir = std::env::temp_dir().join(format!("kingpost-neighbours-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = dir.join("neighbours.sqlite3").display().to_string();
        bench("SQLite", &url, None, &options, &lines);
        let _ = std::fs::remove_dir_all(&dir);
    }
    if wants_database(&options.args, "postgres") {
        let Ok(mut admin) = PgConnection::establish(&options.postgres) else {
            println!("\nPostgres: not reachable at {}, skipped", options.postgres);
            return;
        };
        let schema = format!("bench_neighbours_{}", std::process::id());
        diesel::sql_query(format!("CREATE SCHEMA {schema}"))
            .execute(&mut admin)
            .unwrap();
        let in_schema = |url: &str| {
            let separator = if url.contains('?') { '&' } else { '?' };
            format!("{url}{separator}options=-csearch_path%3D{schema}")
        };
        let replica = options.replica.as_deref().map(in_schema);
        bench(
            "Postgres",
            &in_schema(&options.postgres),
            replica.as_deref(),
            &options,
            &lines,
        );
        diesel::sql_query(format!("DROP SCHEMA {schema} CASCADE"))
            .execute(&mut admin)
            .unwrap();
    }
}
