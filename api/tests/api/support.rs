//! The test harness: the real app (the builder `kingpost serve` uses) on a
//! fresh SQLite file or a fresh Postgres schema, a clock the test moves,
//! and helpers that speak JSON.

use std::{
    io::Write,
    sync::{Arc, Once},
};

use actix_web::{
    body::MessageBody,
    dev::{Service, ServiceResponse},
    http::{Method, StatusCode, header::HeaderMap},
    test, web,
};
use diesel::{Connection, PgConnection, RunQueryDsl};
use kingpost_api::{
    app,
    budgets::{HeldSlots, Limiter, RateLimits},
    clock::ManualClock,
    credentials::{JwtKeys, new_id},
    notify::Hub,
    server,
    state::AppState,
};
use serde_json::{Value, json};

/// The secret the test apps sign with, so tests can forge tokens.
pub const SECRET: &str = "test-secret-0123456789abcdefghijklmnopqrstuvwxyz";

/// Every test account's password.
pub const PASSWORD: &str = "correct horse battery staple";

/// 2026-11-30T12:00:00Z.
pub const START_TIME: i64 = 1_796_040_000_000;

/// A database for one test, dropped after it.
#[derive(Debug)]
pub enum Db {
    Sqlite(std::path::PathBuf),
    Postgres { base: String, schema: String },
}

impl Db {
    pub fn sqlite() -> Db {
        Db::Sqlite(std::env::temp_dir().join(format!("kingpost-test-{}.sqlite3", new_id())))
    }

    /// A fresh schema in the database `KINGPOST_TEST_DATABASE_URL` names,
    /// or `None` (and a note on stderr) when it is not set.
    pub fn postgres() -> Option<Db> {
        let Ok(base) = std::env::var("KINGPOST_TEST_DATABASE_URL") else {
            static NOTE: Once = Once::new();
            NOTE.call_once(|| {
                // Straight to stderr: the test harness captures `eprintln!`.
                let _ = writeln!(
                    std::io::stderr(),
                    "postgres half skipped: set KINGPOST_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)"
                );
            });
            return None;
        };
        let schema = format!("t_{}", new_id().to_ascii_lowercase());
        let mut conn = PgConnection::establish(&base).expect("the test Postgres answers");
        diesel::sql_query(format!("CREATE SCHEMA {schema}"))
            .execute(&mut conn)
            .unwrap();
        Some(Db::Postgres { base, schema })
    }

    pub fn url(&self) -> String {
        match self {
            Db::Sqlite(path) => path.display().to_string(),
            Db::Postgres { base, schema } => {
                let separator = if base.contains('?') { '&' } else { '?' };
                format!("{base}{separator}options=-csearch_path%3D{schema}")
            }
        }
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        match self {
            Db::Sqlite(path) => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
                }
            }
            Db::Postgres { base, schema } => {
                if let Ok(mut conn) = PgConnection::establish(base) {
                    let _ = diesel::sql_query(format!("DROP SCHEMA {schema} CASCADE"))
                        .execute(&mut conn);
                }
            }
        }
    }
}

/// An app instance under test, built as `kingpost serve` builds it, with
/// only what the test changes said: `TestApp::on(&db).start().await`, or
/// `TestApp::on(&db).clock(clock.clone()).limits(tight()).start().await`;
/// `.with_users(["alice", "bob"])` signs them up too; `.state()` gives the
/// state for tests that hold it (two instances on one database, a pool
/// they watch).
pub struct TestApp<'a> {
    db: &'a Db,
    clock: Arc<ManualClock>,
    limits: RateLimits,
    trusted_proxies: Vec<std::net::IpAddr>,
    pool: Option<kingpost_api::db::DbPool>,
    mailer: Option<Arc<kingpost_api::domain::mail::Mailer>>,
    pusher: Option<Arc<kingpost_api::domain::push::Pusher>>,
}

impl<'a> TestApp<'a> {
    /// An instance on `db` (migrated), its clock at [`START_TIME`], no rate
    /// limits, no trusted proxy, a pool as the server sizes it.
    pub fn on(db: &'a Db) -> TestApp<'a> {
        TestApp {
            db,
            clock: clock(),
            limits: RateLimits::unlimited(),
            trusted_proxies: Vec::new(),
            pool: None,
            mailer: None,
            pusher: None,
        }
    }

    /// Sends mail through the SMTP server at `smtp_url`.
    pub fn mail(mut self, smtp_url: &str) -> Self {
        let mailer = kingpost_api::domain::mail::Mailer::new(
            smtp_url,
            "kingpost <noreply@kingpost.test>",
            "http://kingpost.test",
        )
        .expect("a mailer");
        self.mailer = Some(Arc::new(mailer));
        self
    }

    /// Sends Web Push signed with a fresh VAPID key.
    pub fn push(mut self) -> Self {
        let key = kingpost_api::domain::push::Pusher::new_private_key();
        let pusher =
            kingpost_api::domain::push::Pusher::new(&key, "mailto:ops@kingpost.test", true)
                .expect("a pusher");
        self.pusher = Some(Arc::new(pusher));
        self
    }

    pub fn clock(mut self, clock: Arc<ManualClock>) -> Self {
        self.clock = clock;
        self
    }

    pub fn limits(mut self, limits: RateLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Believes the `X-Forwarded-For` of the proxies at these addresses.
    pub fn behind_proxies(mut self, proxies: Vec<std::net::IpAddr>) -> Self {
        self.trusted_proxies = proxies;
        self
    }

    /// On `pool`, a pool of the database.
    pub fn pool(mut self, pool: kingpost_api::db::DbPool) -> Self {
        self.pool = Some(pool);
        self
    }

    /// On a pool of at most `max_size` connections, a request waiting up
    /// to `wait` for one; the pool is given back to be watched.
    pub fn small_pool(
        self,
        max_size: u32,
        wait: std::time::Duration,
    ) -> (Self, kingpost_api::db::DbPool) {
        let settings = kingpost_api::db::PoolSettings {
            max_size,
            connection_timeout: wait,
            sqlite_cache_mib: None,
            sqlite_checkpoints_apart: false,
        };
        let pool = server::open_database_with(&self.db.url(), settings)
            .expect("database opens and migrates");
        (self.pool(pool.clone()), pool)
    }

    /// The state itself, for tests that change a setting before it is shared.
    pub fn app_state(self) -> AppState {
        let pool = self.pool.unwrap_or_else(|| {
            server::open_database(&self.db.url()).expect("database opens and migrates")
        });
        let hub = Hub::default();
        if let Db::Postgres { .. } = self.db {
            hub.listen_to_postgres(self.db.url());
        }
        AppState {
            pool,
            replicas: Default::default(),
            keys: JwtKeys::from_secret(SECRET.as_bytes()).unwrap(),
            clock: self.clock,
            hub,
            limits: self.limits,
            limiter: Limiter::default(),
            import_slots: Default::default(),
            held: Arc::new(HeldSlots::new(10_000)),
            expensive: Arc::new(kingpost_api::budgets::ExpensiveReads::for_this_machine()),
            feeds: Default::default(),
            trusted_proxies: self.trusted_proxies,
            // The tests' webhook receivers listen on loopback.
            allow_private_webhooks: true,
            mailer: self.mailer,
            pusher: self.pusher,
            sqlite_writer: Default::default(),
        }
    }

    pub fn state(self) -> web::Data<AppState> {
        web::Data::new(self.app_state())
    }

    /// The app, served in-process.
    pub async fn start(
        self,
    ) -> impl Service<
        actix_http::Request,
        Response = ServiceResponse<impl MessageBody + use<>>,
        Error = actix_web::Error,
    > + use<> {
        init(self.state()).await
    }

    /// The app, with these accounts signed up: their sessions' tokens.
    pub async fn with_users<const N: usize>(
        self,
        usernames: [&str; N],
    ) -> (
        impl Service<
            actix_http::Request,
            Response = ServiceResponse<impl MessageBody + use<N>>,
            Error = actix_web::Error,
        > + use<N>,
        [String; N],
    ) {
        let app = self.start().await;
        let mut tokens = Vec::with_capacity(N);
        for username in usernames {
            tokens.push(sign_up(&app, username).await);
        }
        let tokens = tokens.try_into().expect("one token a user");
        (app, tokens)
    }
}

/// An answer, its body read as JSON (or `Null` when empty).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    /// Asserts a problem+json answer with this status and code.
    #[track_caller]
    pub fn assert_problem(&self, status: u16, code: &str) -> &Answer {
        assert_eq!(self.status.as_u16(), status, "{:#}", self.body);
        assert_eq!(self.body["code"], code, "{:#}", self.body);
        assert_eq!(self.body["status"], status);
        assert_eq!(
            self.body["type"],
            format!("urn:kingpost:problem:{}", code.replace('_', "-"))
        );
        let content_type = self.headers.get("content-type").unwrap().to_str().unwrap();
        assert_eq!(content_type, "application/problem+json");
        self
    }

    #[track_caller]
    /// The answer's `ETag`.
    pub fn etag(&self) -> String {
        self.headers
            .get("etag")
            .expect("an ETag")
            .to_str()
            .unwrap()
            .to_owned()
    }

    pub fn assert_status(&self, status: u16) -> &Value {
        assert_eq!(self.status.as_u16(), status, "{:#}", self.body);
        &self.body
    }
}

/// A request to the app.
pub struct Call<'a> {
    pub method: Method,
    pub path: String,
    pub token: Option<&'a str>,
    pub body: Option<Value>,
    pub raw: Option<(&'static str, Vec<u8>)>,
    pub headers: Vec<(&'static str, String)>,
    pub peer: Option<std::net::SocketAddr>,
}

impl<'a> Call<'a> {
    pub fn new(method: Method, path: impl Into<String>) -> Call<'a> {
        Call {
            method,
            path: path.into(),
            token: None,
            body: None,
            raw: None,
            headers: Vec::new(),
            peer: None,
        }
    }

    /// Sent from this client address (the peer of the connection).
    pub fn from(mut self, peer: &str) -> Self {
        self.peer = Some(peer.parse().expect("an address and port"));
        self
    }

    pub fn token(mut self, token: &'a str) -> Self {
        self.token = Some(token);
        self
    }

    pub fn json(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    /// A body sent as is, with its content type.
    pub fn raw(mut self, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        self.raw = Some((content_type, body.into()));
        self
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    pub async fn send<B: MessageBody>(self, app: &impl Served<B>) -> Answer {
        let mut req = test::TestRequest::default()
            .method(self.method.clone())
            .uri(&self.path);
        if let Some(token) = self.token {
            req = req.insert_header(("Authorization", format!("Bearer {token}")));
        }
        for (name, value) in self.headers {
            req = req.insert_header((name, value));
        }
        if let Some(peer) = self.peer {
            req = req.peer_addr(peer);
        }
        let sent = self.body.clone();
        if let Some(body) = self.body {
            req = req.set_json(body);
        }
        if let Some((content_type, body)) = self.raw {
            req = req
                .insert_header(("content-type", content_type))
                .set_payload(body);
        }
        let response = test::call_service(app, req.to_request()).await;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = test::read_body(response).await;
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        crate::conformance::check(&self.method, &self.path, status, content_type, &bytes);
        if let Some(sent) = sent.filter(|_| status.is_success()) {
            crate::conformance::record_request(&self.method, &self.path, &sent);
        }
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        Answer {
            status,
            headers,
            body,
        }
    }
}

/// The path of a game from its JSON view.
pub fn path_of(game: &Value) -> String {
    format!("/api/v1/games/{}", game["id"].as_str().unwrap())
}

pub fn get<'a>(path: impl Into<String>) -> Call<'a> {
    Call::new(Method::GET, path)
}

pub fn post<'a>(path: impl Into<String>) -> Call<'a> {
    Call::new(Method::POST, path)
}

pub fn put<'a>(path: impl Into<String>) -> Call<'a> {
    Call::new(Method::PUT, path)
}

pub fn delete<'a>(path: impl Into<String>) -> Call<'a> {
    Call::new(Method::DELETE, path)
}

/// The app under test, as the helpers of a test file take it:
/// `async fn f<B: MessageBody>(app: &impl Served<B>)`.
pub trait Served<B>:
    Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

impl<S, B> Served<B> for S where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>
{
}

/// Registers `username` and signs in: the session's access token.
pub async fn sign_up<B: MessageBody>(app: &impl Served<B>, username: &str) -> String {
    let password = PASSWORD;
    post("/api/v1/accounts")
        .json(json!({"username": username, "password": password}))
        .send(app)
        .await
        .assert_status(201);
    sign_in(app, username, password).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The token response of a password sign-in.
pub async fn sign_in<B: MessageBody>(
    app: &impl Served<B>,
    username: &str,
    password: &str,
) -> Value {
    post("/api/v1/auth/token")
        .json(json!({"grant_type": "password", "username": username, "password": password}))
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

/// A standard game from the usual array, `challenger` White: its view.
pub async fn start_standard_game<B: MessageBody>(
    app: &impl Served<B>,
    challenger: &str,
    opponent: &str,
    opponent_name: &str,
) -> Value {
    let start = json!({"kind": "standard"});
    start_game(app, challenger, opponent, opponent_name, "standard", start).await
}

/// `challenger` challenges `opponent` (as White) and the opponent accepts:
/// the new game's view.
/// A personal token of `session`'s account with `scopes`.
pub async fn personal_token<B: MessageBody>(
    app: &impl Served<B>,
    session: &str,
    scopes: &[&str],
) -> Value {
    post("/api/v1/tokens")
        .token(session)
        .json(json!({"name": "a client", "scopes": scopes}))
        .send(app)
        .await
        .assert_status(201)
        .clone()
}

pub async fn start_game<B: MessageBody>(
    app: &impl Served<B>,
    challenger: &str,
    opponent: &str,
    opponent_name: &str,
    rules: &str,
    start: Value,
) -> Value {
    let challenge = post("/api/v1/challenges")
        .token(challenger)
        .json(json!({"rules": rules, "start": start, "days_per_move": 3, "color": "white", "opponent": opponent_name}))
        .send(app)
        .await;
    let id = challenge.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(format!("/api/v1/challenges/{id}/accept"))
        .token(opponent)
        .send(app)
        .await
        .assert_status(201)
        .clone()
}

/// Plays `moves` alternately for `white` and `black` from the ply of the
/// game as read now; the game as read after. Each move's answer carries only the
/// moves it played: appended to those read before, they make the move
/// list that `GET` answers.
pub async fn play_all<B: MessageBody>(
    app: &impl Served<B>,
    game: &Value,
    white: &str,
    black: &str,
    moves: &[&str],
) -> Value {
    let id = game["id"].as_str().unwrap();
    let read = || get(format!("/api/v1/games/{id}")).token(white).send(app);
    let mut state = read().await.assert_status(200).clone();
    let mut move_list = state["moves"].as_array().unwrap().clone();
    for m in moves {
        let ply = state["ply"].as_i64().unwrap();
        let token = if state["turn"] == "white" {
            white
        } else {
            black
        };
        let answer = post(format!("/api/v1/games/{id}/moves"))
            .token(token)
            .json(json!({"move": m, "ply": ply}))
            .send(app)
            .await;
        state = answer.assert_status(200).clone();
        assert_eq!(state["ply"], ply + 1);
        assert!(
            state.get("moves").is_none(),
            "a move's answer has no move list"
        );
        move_list.extend(state["played"].as_array().unwrap().iter().cloned());
    }
    let read = read().await.assert_status(200).clone();
    assert_eq!(read["moves"], Value::Array(move_list));
    assert_eq!(read["fen"], state["fen"]);
    read
}

/// Waits until `hub` has more than `before` waits parked: a held request
/// has read what it had to and waits, so that a change made next can reach
/// it only by waking it. (A sleep instead would let a slow start read the
/// change and prove nothing of the wake-up.)
pub async fn until_parked(hub: &Hub, before: usize) {
    let started = std::time::Instant::now();
    while hub.parked() <= before {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the request never began to wait"
        );
        actix_web::rt::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

/// Builds the app on `state` as `kingpost serve` does.
pub async fn init(
    state: web::Data<AppState>,
) -> impl Service<
    actix_http::Request,
    Response = ServiceResponse<impl MessageBody>,
    Error = actix_web::Error,
> {
    test::init_service(app::build(state)).await
}

/// A fresh clock at [`START_TIME`].
pub fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(START_TIME))
}

/// Registers `username` and gives it a personal token with every scope for
/// a year: for tests that move the clock by days.
pub async fn sign_up_for_a_year<B: MessageBody>(app: &impl Served<B>, username: &str) -> String {
    let session = sign_up(app, username).await;
    let token = post("/api/v1/tokens")
        .token(&session)
        .json(json!({"name": "tests", "scopes": ["game:read", "game:play", "challenge:write"], "expires_in_days": 366}))
        .send(app)
        .await;
    token.assert_status(201)["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Registers each of `names` for a year (see [`sign_up_for_a_year`]): their
/// tokens by name.
pub async fn players<B: MessageBody>(
    app: &impl Served<B>,
    names: &[&str],
) -> std::collections::BTreeMap<String, String> {
    let mut tokens = std::collections::BTreeMap::new();
    for name in names {
        tokens.insert((*name).to_owned(), sign_up_for_a_year(app, name).await);
    }
    tokens
}

/// A tournament (a round robin, a Swiss or a team match) as anyone reads it.
pub async fn tournament_view<B: MessageBody>(app: &impl Served<B>, id: &str) -> Value {
    get(format!("/api/v1/tournaments/{id}"))
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

/// Reads `count` non-empty NDJSON lines from a streaming body (fewer if it
/// ends first), waiting up to five seconds for each; each line is given to
/// `check` as read.
pub async fn read_lines<B: MessageBody + Unpin>(
    body: &mut B,
    count: usize,
    check: impl Fn(&str),
) -> Vec<Value> {
    let mut text = String::new();
    let mut lines = Vec::new();
    while lines.len() < count {
        let chunk = actix_web::rt::time::timeout(
            std::time::Duration::from_secs(5),
            futures_util::future::poll_fn(|cx| std::pin::Pin::new(&mut *body).poll_next(cx)),
        )
        .await
        .unwrap_or_else(|_| {
            panic!(
                "waited for line {} of {count}; got {lines:#?}",
                lines.len() + 1
            )
        });
        let Some(Ok(bytes)) = chunk else { break };
        text.push_str(std::str::from_utf8(&bytes).unwrap());
        while let Some(end) = text.find('\n') {
            let line: String = text.drain(..=end).collect();
            if !line.trim().is_empty() {
                check(line.trim());
                lines.push(serde_json::from_str(line.trim()).unwrap());
            }
        }
    }
    lines
}

/// Waits up to five seconds for a streaming body to end; what it sent meanwhile.
pub async fn until_the_end<B: MessageBody + Unpin>(body: &mut B) -> String {
    let mut text = String::new();
    loop {
        let chunk = actix_web::rt::time::timeout(
            std::time::Duration::from_secs(5),
            futures_util::future::poll_fn(|cx| std::pin::Pin::new(&mut *body).poll_next(cx)),
        )
        .await
        .expect("the stream ended within seconds");
        match chunk {
            Some(Ok(bytes)) => text.push_str(std::str::from_utf8(&bytes).unwrap()),
            _ => return text,
        }
    }
}
