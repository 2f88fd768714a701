//! The real `kingpost serve` binary on a free port, played over HTTP.

use std::{
    net::TcpListener,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use reqwest::blocking::Client;
use serde_json::{Value, json};

use crate::support::Db;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `kingpost serve` on a free port, its database `db`, with `env` added to
/// its environment, once it answers.
struct Served {
    _server: Server,
    base: String,
    client: Client,
}

impl Served {
    fn start(db: &Db, env: &[(&str, &str)]) -> Served {
        let port = free_port();
        let base = format!("http://127.0.0.1:{port}");
        let server = Server(
            Command::new(env!("CARGO_BIN_EXE_kingpost"))
                .args([
                    "serve",
                    "--bind",
                    &format!("127.0.0.1:{port}"),
                    "--database-url",
                    &db.url(),
                ])
                .env("KINGPOST_JWT_SECRET", "end-to-end-secret")
                .envs(env.iter().copied())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        kingpost_api::domain::webhooks::install_tls_provider();
        let client = Client::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while client
            .get(format!("{base}/api/v1/variants"))
            .send()
            .is_err()
        {
            assert!(Instant::now() < deadline, "the server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Served {
            _server: server,
            base,
            client,
        }
    }

    /// A request's status and its body as JSON (`Null` when it is not).
    fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let response = req.send().unwrap();
        let status = response.status().as_u16();
        (status, response.json().unwrap_or(Value::Null))
    }

    /// A game of `rules` at `days` per move: the first of `tokens`
    /// (alice's) challenges bob as White, the second (bob's) accepts.
    fn start_game(&self, rules: &str, days: i32, tokens: &[String; 2]) -> Value {
        let challenge =
            json!({"rules": rules, "days_per_move": days, "color": "white", "opponent": "bob"});
        let (_, challenge) = self.call(
            reqwest::Method::POST,
            "/api/v1/challenges",
            Some(&tokens[0]),
            Some(challenge),
        );
        let accept = format!(
            "/api/v1/challenges/{}/accept",
            challenge["id"].as_str().unwrap()
        );
        let (status, game) = self.call(reqwest::Method::POST, &accept, Some(&tokens[1]), None);
        assert_eq!(status, 201, "{game}");
        game
    }

    /// Signs `name` up and in: the session's access token.
    fn sign_up(&self, name: &str) -> String {
        let account = json!({"username": name, "password": "long password"});
        let (status, _) = self.call(
            reqwest::Method::POST,
            "/api/v1/accounts",
            None,
            Some(account),
        );
        assert_eq!(status, 201);
        let grant =
            json!({"grant_type": "password", "username": name, "password": "long password"});
        let (status, session) = self.call(
            reqwest::Method::POST,
            "/api/v1/auth/token",
            None,
            Some(grant),
        );
        assert_eq!(status, 200);
        session["access_token"].as_str().unwrap().to_owned()
    }
}

#[test]
fn serve_binary_plays_a_game_over_http() {
    let db = Db::sqlite();
    let served = Served::start(&db, &[]);
    let base = served.base.clone();
    let call = |method, path: &str, token, body| served.call(method, path, token, body);
    let variants = call(reqwest::Method::GET, "/api/v1/variants", None, None).1;
    assert_eq!(
        variants["variants"].as_array().unwrap().len(),
        kingpost_core::Rules::ALL.len()
    );
    let tokens = [served.sign_up("alice"), served.sign_up("bob")];
    let mut game = served.start_game("teleporting-kings", 1, &tokens);
    let path = format!("/api/v1/games/{}/moves", game["id"].as_str().unwrap());
    for (i, m) in ["f3", "e5", "g4", "Qh4#"].into_iter().enumerate() {
        let (status, next) = call(
            reqwest::Method::POST,
            &path,
            Some(&tokens[i % 2]),
            Some(json!({"move": m, "ply": i})),
        );
        assert_eq!(status, 200, "{next:#}");
        game = next;
    }
    assert_eq!(game["result"], "0-1");
    assert_eq!(game["termination"], "checkmate");

    // The HTTP server's own head limits (README, errors and limits): at
    // most 96 header fields and 128 KiB of request head, `431` beyond.
    // The server answers 431 and closes at once; a client still writing a
    // head larger than its socket buffers may see that close as a reset
    // before it reads the 431. Either way the request was refused, which
    // `None` stands for here; a served request is always `Some(status)`.
    // Each request has a connection of its own: one closed after a 431
    // must not be picked from a pool for the next.
    let unpooled = Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let status_with = |headers: Vec<(String, String)>| {
        let mut req = unpooled.get(format!("{base}/api/v1/variants"));
        for (name, value) in headers {
            req = req.header(name, value);
        }
        match req.send() {
            Ok(answer) => Some(answer.status().as_u16()),
            Err(e) if e.is_request() => None,
            Err(e) => panic!("{e}"),
        }
    };
    let refused = |status: Option<u16>| matches!(status, None | Some(431));
    let many = |n: usize| {
        (0..n)
            .map(|i| (format!("x-field-{i}"), "v".to_owned()))
            .collect()
    };
    assert_eq!(status_with(many(80)), Some(200));
    assert_eq!(status_with(many(100)), Some(431));
    let big = |bytes: usize| vec![("x-big".to_owned(), "a".repeat(bytes))];
    assert_eq!(status_with(big(64 * 1024)), Some(200));
    let too_big = status_with(big(200 * 1024));
    assert!(refused(too_big), "{too_big:?}");
}

// With a proxy in the server's environment, a webhook to a name is still
// resolved by the server and delivered only to a public address: the proxy,
// which would resolve the name itself (here, to anything it likes), is
// never asked.
#[test]
fn webhooks_ignore_the_proxy_of_the_servers_environment() {
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    std::thread::spawn(move || {
        for stream in proxy.incoming() {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut stream = stream.unwrap();
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    let db = Db::sqlite();
    let proxies = [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
    ];
    let env: Vec<(&str, &str)> = proxies
        .iter()
        .map(|name| (*name, proxy_url.as_str()))
        .collect();
    let served = Served::start(&db, &env);
    let alice = served.sign_up("alice");
    let bob = served.sign_up("bob");
    // A reserved name (RFC 6761): no resolver gives it a public address.
    let hook = json!({"url": "http://inward.kingpost.test/hook",
                      "secret": "a shared secret of some length",
                      "events": ["challenge_received"]});
    let (status, hook) = served.call(
        reqwest::Method::POST,
        "/api/v1/webhooks",
        Some(&alice),
        Some(hook),
    );
    assert_eq!(status, 201, "{hook}");
    let challenge = json!({"rules": "standard", "days_per_move": 3, "opponent": "alice"});
    let (status, _) = served.call(
        reqwest::Method::POST,
        "/api/v1/challenges",
        Some(&bob),
        Some(challenge),
    );
    assert_eq!(status, 201);
    let log = format!(
        "/api/v1/webhooks/{}/deliveries",
        hook["id"].as_str().unwrap()
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let delivery = loop {
        let (_, list) = served.call(reqwest::Method::GET, &log, Some(&alice), None);
        let delivery = list["deliveries"][0].clone();
        if delivery["attempts"].as_i64().unwrap_or(0) > 0 {
            break delivery;
        }
        assert!(Instant::now() < deadline, "never attempted: {list}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_ne!(delivery["status"], "delivered", "{delivery}");
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "{delivery}"
    );
}

// One address opening connections and sending nothing cannot take the
// descriptors every client needs: past its share (README, limits) its new
// connections are closed at once, while those it holds stay open, and a
// request from another address is served meanwhile.
#[test]
fn one_address_cannot_hold_every_connection() {
    use kingpost_api::budgets::CONNECTIONS_PER_ADDRESS;
    use std::{io::Read, net::TcpStream};

    let db = Db::sqlite();
    let served = Served::start(&db, &[]);
    let address = served.base.trim_start_matches("http://").to_owned();
    let extra = 50;
    // Connected from 127.0.0.2, another loopback address than the test's.
    let connect = || {
        let socket =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        socket
            .bind(
                &"127.0.0.2:0"
                    .parse::<std::net::SocketAddr>()
                    .unwrap()
                    .into(),
            )
            .unwrap();
        socket
            .connect(&address.parse::<std::net::SocketAddr>().unwrap().into())
            .unwrap();
        let stream: TcpStream = socket.into();
        stream.set_nonblocking(true).unwrap();
        stream
    };
    let idle: Vec<TcpStream> = (0..CONNECTIONS_PER_ADDRESS + extra)
        .map(|_| connect())
        .collect();
    let is_closed = |mut stream: &TcpStream| match stream.read(&mut [0; 1]) {
        Ok(0) => true,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
        other => panic!("{other:?}"),
    };
    // The server's own timeout closes an idle connection after 5 s: the
    // refused are closed well before.
    let deadline = Instant::now() + Duration::from_secs(3);
    let closed = loop {
        let closed = idle.iter().filter(|s| is_closed(s)).count();
        if closed >= extra || Instant::now() > deadline {
            break closed;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        closed, extra,
        "those past the share are closed, and only they"
    );
    let (status, _) = served.call(reqwest::Method::GET, "/api/v1/variants", None, None);
    assert_eq!(status, 200);
    let still_open = idle.iter().filter(|s| !is_closed(s)).count();
    assert_eq!(
        still_open, CONNECTIONS_PER_ADDRESS,
        "the address's share stays open"
    );
}

// A held request whose client has gone (a page navigating on closes its
// connections) gives its place back as soon as its place is wanted: an
// account whose 20 long polls and streams were abandoned (README, limits)
// opens new ones at once, not when the abandoned ones would have ended.
#[test]
fn held_requests_whose_clients_have_gone_give_their_places_back() {
    use kingpost_api::budgets::HELD_PER_ACCOUNT;
    use std::{
        io::{Read, Write},
        net::TcpStream,
    };

    let db = Db::sqlite();
    let served = Served::start(&db, &[]);
    let tokens = [served.sign_up("alice"), served.sign_up("bob")];
    let game = served.start_game("standard", 3, &tokens);
    let game_path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let etag = served
        .client
        .get(format!("{}{game_path}", served.base))
        .bearer_auth(&tokens[0])
        .send()
        .unwrap()
        .headers()["etag"]
        .to_str()
        .unwrap()
        .to_owned();
    let address = served.base.trim_start_matches("http://").to_owned();
    let hold = |path: &str| {
        let mut stream = TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
             If-None-Match: {etag}\r\n\r\n",
            tokens[0]
        )
        .unwrap();
        stream
    };
    let status_line = |mut stream: &TcpStream| {
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut head = [0; 12];
        stream.read_exact(&mut head).unwrap();
        String::from_utf8_lossy(&head).into_owned()
    };
    let polls = format!("{game_path}?wait=60");
    let mut held: Vec<TcpStream> = (0..HELD_PER_ACCOUNT / 2).map(|_| hold(&polls)).collect();
    for _ in 0..HELD_PER_ACCOUNT / 2 {
        let stream = hold("/api/v1/stream/events");
        assert_eq!(status_line(&stream), "HTTP/1.1 200");
        held.push(stream);
    }
    let refused = hold("/api/v1/stream/events");
    assert_eq!(
        status_line(&refused),
        "HTTP/1.1 429",
        "the account's share is held"
    );
    // Abandoned, as a page navigating on abandons them.
    drop(held);
    let started = Instant::now();
    let again: Vec<TcpStream> = (0..HELD_PER_ACCOUNT)
        .map(|_| hold("/api/v1/stream/events"))
        .collect();
    for stream in &again {
        assert_eq!(status_line(stream), "HTTP/1.1 200");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    let refused = hold(&polls);
    assert_eq!(status_line(&refused), "HTTP/1.1 429", "and held again");
}
