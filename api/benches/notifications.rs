//! What notifications cost the move path, and how soon they arrive: the
//! moves per second of `POST /games/{id}/moves` on the real `kingpost
//! serve` (release) with every player's notifications off, beside the same
//! run with every player on e-mail (a verified address, an SMTP sink here)
//! and Web Push (a subscription at a push sink here), in the same run; and
//! under that load, the time from a move's answer to its push and its mail
//! arriving at the sinks, p50/p99. After each run, on its database, a
//! move's rows written directly (with the pushes, when on), so that the
//! move path's ratio to them is compared with notifications off and on.
//!
//! `cargo bench -p kingpost-api --bench notifications` with `-- --seconds
//! <s> --clients <n>` and `sqlite` or `postgres` to run one; Postgres from
//! `KINGPOST_BENCH_DATABASE_URL` (default the local `test` database, in a
//! fresh schema dropped at the end).
//!
//! Each client plays games along a random line, move after move as soon as
//! the last is answered. Pushes are decrypted with the browser keys the
//! bench made and matched to their move by game and ply (the payload's tag
//! and title); mails by recipient and title. Mail is bounded at ten notices
//! an account an hour, so its latency is that of each player's first ten.

mod common;

use std::{
    collections::HashMap,
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use common::{
    Server, move_rows,
    players::{Seat, new_game, playable_line, post, seats, send},
    wants_database,
};
use diesel::{Connection, PgConnection, RunQueryDsl};
use rand::{SeedableRng, rngs::SmallRng};
use serde_json::{Value, json};
use web_push_native::p256;

struct Options {
    seconds: u64,
    clients: usize,
    postgres: String,
}

fn options(args: &[String]) -> Options {
    let mut options = Options {
        seconds: 10,
        clients: 8,
        postgres: std::env::var("KINGPOST_BENCH_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned()),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => options.seconds = args.next().unwrap().parse().unwrap(),
            "--clients" => options.clients = args.next().unwrap().parse().unwrap(),
            _ => {}
        }
    }
    options
}

/// What reached a sink: a key naming the move it tells of, and when.
type Arrivals = Arc<Mutex<Vec<(String, Instant)>>>;

/// An SMTP server that accepts every mail: each is recorded by recipient
/// and subject; the verification mails' texts are kept for their links.
struct SmtpSink {
    port: u16,
    arrivals: Arrivals,
    texts: Arc<Mutex<HashMap<String, String>>>,
}

impl SmtpSink {
    fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let arrivals: Arrivals = Arc::default();
        let texts: Arc<Mutex<HashMap<String, String>>> = Arc::default();
        let (got, kept) = (arrivals.clone(), texts.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (got, kept) = (got.clone(), kept.clone());
                std::thread::spawn(move || smtp_session(stream, &got, &kept));
            }
        });
        SmtpSink {
            port,
            arrivals,
            texts,
        }
    }
}

/// One SMTP session, as RFC 5321 has it for a client that sends one
/// command at a time: every command is accepted.
fn smtp_session(stream: TcpStream, arrivals: &Arrivals, texts: &Mutex<HashMap<String, String>>) {
    let mut out = stream.try_clone().unwrap();
    let mut lines = BufReader::new(stream);
    let _ = out.write_all(b"220 sink ESMTP\r\n");
    let mut to = String::new();
    let mut line = String::new();
    while lines.read_line(&mut line).unwrap_or(0) > 0 {
        let command = line.trim_end().to_ascii_uppercase();
        let answer: &[u8] = if command.starts_with("EHLO") || command.starts_with("HELO") {
            b"250-sink\r\n250 8BITMIME\r\n"
        } else if command.starts_with("RCPT TO:") {
            to = line.trim_end()[8..]
                .trim_matches(['<', '>', ' '])
                .to_owned();
            b"250 OK\r\n"
        } else if command == "DATA" {
            let _ = out.write_all(b"354 go on\r\n");
            let mut message = String::new();
            loop {
                let mut data = String::new();
                if lines.read_line(&mut data).unwrap_or(0) == 0 || data == ".\r\n" {
                    break;
                }
                message.push_str(&data);
            }
            let subject = message
                .lines()
                .find_map(|l| l.strip_prefix("Subject: "))
                .unwrap_or_default()
                .to_owned();
            arrivals
                .lock()
                .unwrap()
                .push((format!("{to} {subject}"), Instant::now()));
            texts.lock().unwrap().insert(to.clone(), message);
            b"250 OK\r\n"
        } else if command == "QUIT" {
            let _ = out.write_all(b"221 bye\r\n");
            return;
        } else {
            b"250 OK\r\n"
        };
        let _ = out.write_all(answer);
        line.clear();
    }
}

/// What reached the push sink: path, body, when.
type Received = Arc<Mutex<Vec<(String, Vec<u8>, Instant)>>>;

/// A push service: every POST is answered 201 and kept by path, with its
/// body, to be decrypted once the run is over.
struct PushSink {
    port: u16,
    received: Received,
}

impl PushSink {
    fn start() -> PushSink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received: Received = Arc::default();
        let kept = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = kept.clone();
                std::thread::spawn(move || http_session(stream, &kept));
            }
        });
        PushSink { port, received }
    }
}

/// Reads HTTP/1.1 requests off one connection (kept alive) and answers 201.
fn http_session(stream: TcpStream, kept: &Mutex<Vec<(String, Vec<u8>, Instant)>>) {
    let mut out = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let path = request_line
            .split(' ')
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header).unwrap();
            if header == "\r\n" {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        kept.lock().unwrap().push((path, body, Instant::now()));
        let _ = out.write_all(b"HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n");
    }
}

/// A player's browser: its key pair and secret.
struct Browser {
    secret: p256::SecretKey,
    auth: [u8; 16],
}

impl Browser {
    fn new(seed: u8) -> Browser {
        Browser {
            secret: p256::SecretKey::random(&mut p256::elliptic_curve::rand_core::OsRng),
            auth: [seed; 16],
        }
    }

    fn subscription(&self, endpoint: &str) -> Value {
        use p256::elliptic_curve::sec1::ToEncodedPoint;
        let point = self.secret.public_key().to_encoded_point(false);
        json!({"endpoint": endpoint, "keys": {
            "p256dh": URL_SAFE_NO_PAD.encode(point.as_bytes()),
            "auth": URL_SAFE_NO_PAD.encode(self.auth),
        }})
    }

    fn decrypt(&self, body: Vec<u8>) -> Value {
        let auth = web_push_native::Auth::clone_from_slice(&self.auth);
        let plain =
            web_push_native::decrypt(body, &self.secret, &auth).expect("a payload we can read");
        serde_json::from_slice(&plain).unwrap()
    }
}

/// The p50 and p99 of `samples`, in ms.
fn quantiles(mut samples: Vec<Duration>) -> (f64, f64, usize) {
    samples.sort();
    let at = |q: f64| {
        samples
            .get(((samples.len() as f64 - 1.0) * q).round() as usize)
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
    };
    (at(0.5), at(0.99), samples.len())
}

/// One client's moves: (game, ply, the mover's opponent's name, when the
/// move was answered).
type Played = Vec<(String, usize, String, Instant)>;

/// Every client plays its game for `seconds`: the moves answered.
fn play(base: &str, seats: &[Seat], seconds: u64) -> Vec<Played> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    std::thread::scope(|scope| {
        let handles: Vec<_> = seats
            .iter()
            .enumerate()
            .map(|(i, seat)| {
                scope.spawn(move || {
                    let client = reqwest::blocking::Client::new();
                    let mut rng = SmallRng::seed_from_u64(i as u64);
                    let line = playable_line(&mut rng, 300);
                    let mut played = Played::new();
                    while Instant::now() < deadline {
                        let game = new_game(&client, base, seat).expect("a game");
                        for (ply, uci) in line.iter().enumerate() {
                            if Instant::now() >= deadline {
                                break;
                            }
                            let (mover, opponent) = if ply % 2 == 0 {
                                (&seat.white, &seat.black)
                            } else {
                                (&seat.black, &seat.white)
                            };
                            let url = format!("{base}/games/{game}/moves");
                            let body = json!({"move": uci, "ply": ply});
                            send(&client, &url, Some(&mover.1), &body).expect("a move");
                            let answered = Instant::now();
                            played.push((game.clone(), ply + 1, opponent.0.clone(), answered));
                        }
                    }
                    played
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn moves_per_second(played: &[Played], seconds: u64) -> f64 {
    played.iter().map(Vec::len).sum::<usize>() as f64 / seconds as f64
}

/// The runs on one database, each on a database of its own made by `fresh`.
fn bench(name: &str, options: &Options, fresh: &dyn Fn(&str) -> String) {
    // Notifications off: no address, no subscription, no mail server.
    let off_url = fresh("off");
    let server = Server::start(&off_url, &["--no-rate-limits"]);
    let quiet = seats(&server.base, options.clients, "q");
    let off = play(&server.base, &quiet, options.seconds);
    drop(server);
    let off_rows = move_rows::baseline(&off_url, options.clients, options.seconds, false);

    // Every player on e-mail and push.
    let smtp = SmtpSink::start();
    let sink = PushSink::start();
    let key = web_push_native::jwt_simple::prelude::ES256KeyPair::generate();
    let key = URL_SAFE_NO_PAD.encode(key.to_bytes());
    let smtp_url = format!("smtp://127.0.0.1:{}", smtp.port);
    // Joined to its flag: a key beginning with `-` is no flag of its own.
    let vapid_key = format!("--vapid-private-key={key}");
    let on_url = fresh("on");
    let server = Server::start(
        &on_url,
        &[
            "--no-rate-limits",
            "--allow-private-webhooks",
            "--smtp-url",
            &smtp_url,
            "--mail-from",
            "bench <bench@kingpost.test>",
            &vapid_key,
            "--vapid-subject",
            "mailto:bench@kingpost.test",
        ],
    );
    let base = &server.base;
    let told = seats(base, options.clients, "n");
    let client = reqwest::blocking::Client::new();
    let mut browsers = HashMap::new();
    for (n, (name, token)) in told.iter().flat_map(|s| [&s.white, &s.black]).enumerate() {
        let address = format!("{name}@bench.test");
        let put = client
            .put(format!("{base}/account/email"))
            .bearer_auth(token)
            .json(&json!({"address": address}))
            .send()
            .unwrap();
        assert!(put.status().is_success(), "{}", put.text().unwrap());
        let deadline = Instant::now() + Duration::from_secs(30);
        let link = loop {
            if let Some(text) = smtp.texts.lock().unwrap().get(&address) {
                // The text part is quoted-printable: lines end in soft breaks.
                let text = text.replace("=\r\n", "");
                let at = text.find("/#/verify-email/").expect("a link") + "/#/verify-email/".len();
                break text[at..].split_whitespace().next().unwrap().to_owned();
            }
            assert!(Instant::now() < deadline, "no verification mail");
            std::thread::sleep(Duration::from_millis(20));
        };
        send(
            &client,
            &format!("{base}/account/email/verify"),
            None,
            &json!({"token": link}),
        )
        .unwrap();
        let browser = Browser::new(u8::try_from(n % 250).unwrap() + 1);
        let endpoint = format!("http://127.0.0.1:{}/push/{name}", sink.port);
        post(
            &client,
            &format!("{base}/push-subscriptions"),
            Some(token),
            &browser.subscription(&endpoint),
        )
        .unwrap();
        browsers.insert(format!("/push/{name}"), browser);
    }
    smtp.arrivals.lock().unwrap().clear();
    let on = play(base, &told, options.seconds);
    // Let the last pushes and mails arrive.
    std::thread::sleep(Duration::from_secs(5));
    drop(server);
    let on_rows = move_rows::baseline(&on_url, options.clients, options.seconds, true);

    let mut answered: HashMap<(String, usize), Instant> = HashMap::new();
    // A player's first ten mails, all of their first game, are told apart
    // by their ply.
    let mut mailed: HashMap<(String, usize), Instant> = HashMap::new();
    for (game, ply, opponent, at) in on.iter().flatten() {
        answered.insert((game.clone(), *ply), *at);
        mailed
            .entry((format!("{opponent}@bench.test"), *ply))
            .or_insert(*at);
    }
    let mut push_latency = Vec::new();
    for (path, body, arrived) in sink.received.lock().unwrap().drain(..) {
        let payload = browsers[&path].decrypt(body);
        let title = payload["title"].as_str().unwrap_or_default();
        let Some(ply) = title.rsplit(": ").next().and_then(ply_of) else {
            continue; // a challenge or a game's start
        };
        let game = payload["tag"].as_str().unwrap().to_owned();
        if let Some(at) = answered.get(&(game, ply)) {
            push_latency.push(arrived.saturating_duration_since(*at));
        }
    }
    let mail_latency: Vec<Duration> = smtp
        .arrivals
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(key, arrived)| {
            let (to, subject) = key.split_once(' ')?;
            let ply = ply_of(subject.rsplit(": ").next()?)?;
            let at = mailed.get(&(to.to_owned(), ply))?;
            Some(arrived.saturating_duration_since(*at))
        })
        .collect();

    let (off_rate, on_rate) = (
        moves_per_second(&off, options.seconds),
        moves_per_second(&on, options.seconds),
    );
    println!(
        "{name}: {} clients, {} s each: {off_rate:.0} moves/s with notifications off, {on_rate:.0} with e-mail and push on for every player: ratio {:.3}",
        options.clients,
        options.seconds,
        on_rate / off_rate
    );
    println!(
        "{name}: the move path's ratio to the same rows written directly: {:.3} off ({off_rate:.0} / {off_rows:.0}), \
         {:.3} on ({on_rate:.0} / {on_rows:.0}, the rows with the pushes): change {:.3}",
        off_rate / off_rows,
        on_rate / on_rows,
        (on_rate / on_rows) / (off_rate / off_rows)
    );
    let (p50, p99, n) = quantiles(push_latency);
    println!(
        "{name}: from a move's answer to its push at the sink: p50 {p50:.0} ms, p99 {p99:.0} ms ({n} pushes of {} moves)",
        answered.len()
    );
    let (p50, p99, n) = quantiles(mail_latency);
    println!(
        "{name}: from a move's answer to its mail at the sink: p50 {p50:.0} ms, p99 {p99:.0} ms ({n} mails: ten an account an hour)"
    );
}

/// The ply of "12. e4" (23) or "12... e5" (24).
fn ply_of(numbered: &str) -> Option<usize> {
    let (number, rest) = numbered.split_once('.')?;
    let number: usize = number.parse().ok()?;
    Some(if rest.starts_with("..") {
        2 * number
    } else {
        2 * number - 1
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = options(&args);
    if wants_database(&args, "sqlite") {
        let dir = tempfile_dir();
        bench("sqlite", &options, &|run| format!("{dir}/{run}.sqlite3"));
        let _ = std::fs::remove_dir_all(&dir);
    }
    if wants_database(&args, "postgres") {
        let schemas = Mutex::new(Vec::new());
        let mut admin = PgConnection::establish(&options.postgres).expect("Postgres for the bench");
        bench("postgres", &options, &|run| {
            let schema = format!("bench_notify_{run}_{}", std::process::id());
            diesel::sql_query(format!("CREATE SCHEMA {schema}"))
                .execute(&mut PgConnection::establish(&options.postgres).unwrap())
                .unwrap();
            schemas.lock().unwrap().push(schema.clone());
            let separator = if options.postgres.contains('?') {
                '&'
            } else {
                '?'
            };
            format!(
                "{}{separator}options=-csearch_path%3D{schema}",
                options.postgres
            )
        });
        for schema in schemas.into_inner().unwrap() {
            diesel::sql_query(format!("DROP SCHEMA {schema} CASCADE"))
                .execute(&mut admin)
                .unwrap();
        }
    }
}

fn tempfile_dir() -> String {
    let dir = std::env::temp_dir().join(format!("kingpost-bench-notify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.to_string_lossy().into_owned()
}
