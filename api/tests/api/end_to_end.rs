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

#[test]
fn serve_binary_plays_a_game_over_http() {
    let db = Db::sqlite();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_kingpost"))
            .args([
                "serve",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--database-url",
                &db.url(),
            ])
            .env("KINGPOST_JWT_SECRET", "end-to-end-secret")
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
    let call = |method: reqwest::Method,
                path: &str,
                token: Option<&str>,
                body: Option<Value>|
     -> (u16, Value) {
        let mut req = client.request(method, format!("{base}{path}"));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        if let Some(body) = body {
            req = req.json(&body);
        }
        let response = req.send().unwrap();
        let status = response.status().as_u16();
        (status, response.json().unwrap_or(Value::Null))
    };
    let variants = call(reqwest::Method::GET, "/api/v1/variants", None, None).1;
    assert_eq!(
        variants["variants"].as_array().unwrap().len(),
        kingpost_core::Rules::ALL.len()
    );
    let mut tokens = Vec::new();
    for name in ["alice", "bob"] {
        let account = json!({"username": name, "password": "long password"});
        assert_eq!(
            call(
                reqwest::Method::POST,
                "/api/v1/accounts",
                None,
                Some(account)
            )
            .0,
            201
        );
        let grant =
            json!({"grant_type": "password", "username": name, "password": "long password"});
        let (status, session) = call(
            reqwest::Method::POST,
            "/api/v1/auth/token",
            None,
            Some(grant),
        );
        assert_eq!(status, 200);
        tokens.push(session["access_token"].as_str().unwrap().to_owned());
    }
    let challenge = json!({"rules": "teleporting-kings", "days_per_move": 1, "color": "white", "opponent": "bob"});
    let (_, challenge) = call(
        reqwest::Method::POST,
        "/api/v1/challenges",
        Some(&tokens[0]),
        Some(challenge),
    );
    let accept = format!(
        "/api/v1/challenges/{}/accept",
        challenge["id"].as_str().unwrap()
    );
    let (status, mut game) = call(reqwest::Method::POST, &accept, Some(&tokens[1]), None);
    assert_eq!(status, 201);
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
