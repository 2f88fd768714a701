//! Knowing when it is your move: long polls, the event stream and its
//! resumption, webhooks signed, retried and kept across a restart, and
//! changes on one instance waking requests held by another.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpListener,
    pin::Pin,
    sync::{Arc, Mutex},
    time::Duration,
};

use actix_web::body::MessageBody;
use kingpost_api::{
    clock::{Clock, DAY, HOUR, MINUTE, SECOND},
    domain::webhooks::{self, signature},
    server::{deliver_once, sweep_once},
};
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{
        Db, TestApp, clock, get, init, path_of, play_all, post, read_lines, sign_up_for_a_year,
        start_standard_game, until_parked, until_the_end,
    },
};

on_both_databases!(
    a_stream_not_followed_sends_what_was_missed_and_ends,
    held_requests_are_capped,
    a_stream_ends_with_its_token,
    webhooks_reach_public_addresses_only,
    a_slow_webhook_delays_only_its_own,
    one_accounts_backlog_delays_only_its_own,
    long_poll_released_by_a_move_or_timing_out,
    stream_of_every_event_type_and_resumption,
    webhooks_signed_retried_and_kept,
    each_players_webhooks_get_their_own_events
);

// `follow=false`: what the log holds after `since`, then the end, for a
// client that looks now and then instead of holding a connection.
async fn a_stream_not_followed_sends_what_was_missed_and_ends(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let open = |query: &str| {
        actix_web::test::TestRequest::get()
            .uri(&format!("/api/v1/stream/events?{query}"))
            .insert_header(("Authorization", format!("Bearer {bob}")))
            .to_request()
    };
    let mut body = actix_web::test::call_service(&app, open("since=0&follow=false"))
        .await
        .into_body();
    let sent = until_the_end(&mut body).await;
    let kinds: Vec<String> = sent
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["type"].to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            "\"challenge_received\"",
            "\"game_started\"",
            "\"opponent_moved\""
        ]
    );
    // An id beyond any event id is a bad query, as the spec says.
    get("/api/v1/stream/events?since=9223372036854775808")
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
    // From now on there is nothing yet: an empty answer, at once.
    let mut body = actix_web::test::call_service(&app, open("follow=false"))
        .await
        .into_body();
    assert_eq!(until_the_end(&mut body).await, "");
}

async fn long_poll_released_by_a_move_or_timing_out(db: Db) {
    let state = TestApp::on(&db).state();
    let app = init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let first = get(&path).token(&bob).send(&app).await;
    let etag = first
        .headers
        .get("etag")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();

    // Nothing happens: 304 after the wait.
    let idle = get(format!("{path}?wait=1"))
        .token(&bob)
        .header("If-None-Match", etag.clone())
        .send(&app)
        .await;
    assert_eq!(idle.status.as_u16(), 304);

    // Alice moves while Bob waits: Bob's request returns at once with the move.
    let poll = get(format!("{path}?wait=30"))
        .token(&bob)
        .header("If-None-Match", etag.clone())
        .send(&app);
    let parked = state.hub.parked();
    let move_later = async {
        until_parked(&state.hub, parked).await;
        play_all(&app, &first.body, &alice, &bob, &["e4"]).await
    };
    let started = std::time::Instant::now();
    let (released, _) = futures_util::future::join(poll, move_later).await;
    assert_eq!(released.status.as_u16(), 200);
    assert_eq!(released.body["ply"], 1);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "released by the move, not the wait"
    );
    get(format!("{path}?wait=61"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
}

/// Reads `count` events (NDJSON lines) from a streaming response, waiting
/// up to a few seconds for them.
pub(crate) async fn read_events<B: MessageBody + Unpin>(body: &mut B, count: usize) -> Vec<Value> {
    read_lines(body, count, |line| {
        // Each streamed event is an answer too: checked against the spec.
        crate::conformance::check(
            &actix_web::http::Method::GET,
            "/api/v1/stream/events",
            actix_web::http::StatusCode::OK,
            "application/x-ndjson",
            line.as_bytes(),
        )
    })
    .await
}

async fn stream_of_every_event_type_and_resumption(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;

    // Bob's stream, open before anything happens.
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events")
        .insert_header(("Authorization", format!("Bearer {bob}")))
        .to_request();
    let response = actix_web::test::call_service(&app, request).await;
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "application/x-ndjson"
    );
    let mut body = response.into_body();

    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let events = read_events(&mut body, 2).await;
    assert_eq!(events[0]["type"], "challenge_received");
    assert_eq!(events[1]["type"], "game_started");
    assert_eq!(events[1]["game_id"], game["id"]);

    let game = play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let moved = read_events(&mut body, 1).await;
    assert_eq!(moved[0]["type"], "opponent_moved");
    assert_eq!(moved[0]["data"]["san"], "e4");
    assert_eq!(moved[0]["data"]["deadline"], game["deadline"]);

    post(format!("{}/draw-offer", path_of(&game)))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    assert_eq!(read_events(&mut body, 1).await[0]["type"], "draw_offered");

    // Three days per move: a quarter left is 18 hours.
    clock.advance(2 * DAY + 7 * 3_600_000);
    assert_eq!(sweep_once(&state).await.unwrap(), 0);
    let near = read_events(&mut body, 1).await;
    assert_eq!(near[0]["type"], "deadline_near");
    assert_eq!(near[0]["data"]["time_left_seconds"], 17 * 3600);
    assert_eq!(sweep_once(&state).await.unwrap(), 0);

    post(format!("{}/resign", path_of(&game)))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    let finished = read_events(&mut body, 1).await;
    assert_eq!(finished[0]["type"], "game_finished");
    assert_eq!(finished[0]["data"]["result"], "0-1");
    drop(body);

    // Alice's side: accepted, declined; resumed from the log with no gap
    // and no duplicate.
    let declined = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 1, "opponent": "bob"}))
        .send(&app)
        .await;
    let declined_id = declined.body["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/challenges/{declined_id}/decline"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    let open = |last_event_id: Option<i64>| {
        let mut req = actix_web::test::TestRequest::get()
            .insert_header(("Authorization", format!("Bearer {alice}")));
        req = match last_event_id {
            None => req.uri("/api/v1/stream/events?since=0"),
            Some(id) => req
                .uri("/api/v1/stream/events")
                .insert_header(("Last-Event-ID", id.to_string())),
        };
        req.to_request()
    };
    let mut all = actix_web::test::call_service(&app, open(None))
        .await
        .into_body();
    let log = read_events(&mut all, 4).await;
    drop(all);
    let kinds: Vec<&str> = log.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "challenge_accepted",
            "game_started",
            "game_finished",
            "challenge_declined"
        ]
    );
    let ids: Vec<i64> = log.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let mut resumed = actix_web::test::call_service(&app, open(Some(ids[1])))
        .await
        .into_body();
    let rest = read_events(&mut resumed, 2).await;
    assert_eq!(
        rest.iter()
            .map(|e| e["id"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        ids[2..]
    );

    // Server-Sent Events carry the id and the type.
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events?since=0")
        .insert_header(("Authorization", format!("Bearer {alice}")))
        .insert_header(("Accept", "text/event-stream"))
        .to_request();
    let response = actix_web::test::call_service(&app, request).await;
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    let mut body = response.into_body();
    let Some(Ok(chunk)) =
        futures_util::future::poll_fn(|cx| Pin::new(&mut body).poll_next(cx)).await
    else {
        panic!("the stream ended");
    };
    let text = String::from_utf8(chunk.to_vec()).unwrap();
    assert!(
        text.starts_with(&format!(
            "id: {}\nevent: challenge_accepted\ndata: {{",
            ids[0]
        )),
        "{text}"
    );
}

/// A request as the receiver saw it: request line, headers, body.
type Received = (String, Vec<(String, String)>, Vec<u8>);

/// A webhook receiver: answers each POST with the next status of `plan`
/// (then 200), and keeps what it received.
struct Receiver {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

fn receiver(plan: Vec<u16>) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = received.clone();
    std::thread::spawn(move || {
        let mut plan = plan.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut headers = Vec::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap();
                headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
            }
            let length: usize = headers
                .iter()
                .find(|(n, _)| n == "content-length")
                .map_or(0, |(_, v)| v.parse().unwrap());
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            log.lock().unwrap().push((request_line, headers, body));
            let status = plan.next().unwrap_or(200);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    Receiver { url, received }
}

// A game's events reach every webhook of the player they are for that
// asks for their kind, and no other: a change reads both players' webhooks
// together with their accounts.
async fn each_players_webhooks_get_their_own_events(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let mut hooks = Vec::new();
    for (token, kinds) in [
        (&bob, json!(["opponent_moved"])),
        (&bob, json!(["opponent_moved", "game_finished"])),
        (&alice, json!(["game_finished"])),
    ] {
        let created = post("/api/v1/webhooks")
            .token(token)
            .json(json!({"url": "http://127.0.0.1:9/hook", "secret": "a shared secret of some length", "events": kinds}))
            .send(&app)
            .await;
        let id = created.assert_status(201)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        hooks.push((token, id));
    }
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    // Fool's mate: Bob hears of two moves, Alice of two and the end.
    play_all(&app, &game, &alice, &bob, &["f3", "e5", "g4", "Qh4#"]).await;
    let mut queued = Vec::new();
    for (token, id) in &hooks {
        let log = get(format!("/api/v1/webhooks/{id}/deliveries"))
            .token(token)
            .send(&app)
            .await;
        queued.push(
            log.assert_status(200)["deliveries"]
                .as_array()
                .unwrap()
                .len(),
        );
    }
    assert_eq!(queued, [2, 3, 1]);
}

async fn webhooks_signed_retried_and_kept(db: Db) {
    let clock = clock();
    let first = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(first.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let hook = receiver(vec![500]);
    let secret = "a shared secret of some length";
    let created = post("/api/v1/webhooks")
        .token(&bob)
        .json(json!({"url": hook.url, "secret": secret, "events": ["challenge_received", "opponent_moved"]}))
        .send(&app)
        .await;
    let hook_id = created.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        created.body.get("secret").is_none(),
        "the secret is never shown"
    );
    post("/api/v1/webhooks")
        .token(&bob)
        .json(json!({"url": "ftp://x", "secret": secret, "events": ["game_finished"]}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_webhook");

    // The challenge queues a delivery; the receiver fails the first attempt.
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let client = webhooks::Sender::new(true);
    assert_eq!(deliver_once(&first, &client).await.unwrap(), 1);
    let log = get(format!("/api/v1/webhooks/{hook_id}/deliveries"))
        .token(&bob)
        .send(&app)
        .await;
    let delivery = &log.body["deliveries"][0];
    assert_eq!(delivery["status"], "pending");
    assert_eq!(delivery["attempts"], 1);
    assert_eq!(delivery["last_status"], 500);
    assert_eq!(
        deliver_once(&first, &client).await.unwrap(),
        0,
        "not before the backoff"
    );
    clock.advance(11 * SECOND);
    assert_eq!(deliver_once(&first, &client).await.unwrap(), 1);
    let log = get(format!("/api/v1/webhooks/{hook_id}/deliveries"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(log.body["deliveries"][0]["status"], "delivered");
    assert_eq!(log.body["deliveries"][0]["attempts"], 2);

    {
        let received = hook.received.lock().unwrap();
        assert_eq!(received.len(), 2, "the failed attempt and the retry");
        let (line, headers, body) = &received[1];
        assert!(line.starts_with("POST /hook "));
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        assert_eq!(header("x-kingpost-event"), "challenge_received");
        assert_eq!(header("x-kingpost-signature"), signature(secret, body));
        assert_eq!(
            header("x-kingpost-delivery"),
            received[0]
                .1
                .iter()
                .find(|(n, _)| n == "x-kingpost-delivery")
                .unwrap()
                .1
        );
        let event: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(event["type"], "challenge_received");
    }

    // A delivery queued before a restart is delivered after it.
    play_all(&app, &game, &alice, &bob, &["e4"]).await;
    drop(app);
    drop(first);
    let second = TestApp::on(&db).clock(clock.clone()).state();
    assert_eq!(deliver_once(&second, &client).await.unwrap(), 1);
    let app = init(second.clone()).await;
    let log = get(format!("/api/v1/webhooks/{hook_id}/deliveries"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(log.body["deliveries"][0]["status"], "delivered");
    assert_eq!(hook.received.lock().unwrap().len(), 3);

    // Given up a day after the event.
    let dead = receiver(vec![503; 100]);
    let carol = sign_up_for_a_year(&app, "carol").await;
    post("/api/v1/webhooks")
        .token(&carol)
        .json(json!({"url": dead.url, "secret": secret, "events": ["challenge_received"]}))
        .send(&app)
        .await
        .assert_status(201);
    post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 1, "opponent": "carol"}))
        .send(&app)
        .await
        .assert_status(201);
    for _ in 0..40 {
        deliver_once(&second, &client).await.unwrap();
        clock.advance(61 * MINUTE);
    }
    let hooks = get("/api/v1/webhooks").token(&carol).send(&app).await;
    let dead_id = hooks.body["webhooks"][0]["id"].as_str().unwrap().to_owned();
    let log = get(format!("/api/v1/webhooks/{dead_id}/deliveries"))
        .token(&carol)
        .send(&app)
        .await;
    assert_eq!(log.body["deliveries"][0]["status"], "failed");
    let attempts = log.body["deliveries"][0]["attempts"].as_i64().unwrap();
    assert!((5..40).contains(&attempts), "{attempts} attempts in a day");
    get(format!("/api/v1/webhooks/{dead_id}/deliveries"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
}

// Across instances: a move posted to one wakes a long poll and a stream
// held by another (Postgres LISTEN/NOTIFY; SQLite runs one instance).
#[actix_web::test]
async fn postgres_move_on_one_instance_wakes_the_other() {
    let Some(db) = Db::postgres() else { return };
    let clock = clock();
    let one = TestApp::on(&db).clock(clock.clone()).start().await;
    let second = TestApp::on(&db).clock(clock.clone()).state();
    let two = init(second.clone()).await;
    let alice = sign_up_for_a_year(&one, "alice").await;
    let bob = sign_up_for_a_year(&one, "bob").await;
    let game = start_standard_game(&one, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let etag = get(&path)
        .token(&bob)
        .send(&two)
        .await
        .headers
        .get("etag")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events")
        .insert_header(("Authorization", format!("Bearer {bob}")))
        .to_request();
    let mut stream = actix_web::test::call_service(&two, request)
        .await
        .into_body();
    let poll = get(format!("{path}?wait=30"))
        .token(&bob)
        .header("If-None-Match", etag)
        .send(&two);
    // The stream's feed waits on two signals (events, tokens) first.
    until_parked(&second.hub, 1).await;
    let parked = second.hub.parked();
    let move_later = async {
        until_parked(&second.hub, parked).await;
        play_all(&one, &game, &alice, &bob, &["d4"]).await
    };
    let started = std::time::Instant::now();
    let (released, _) = futures_util::future::join(poll, move_later).await;
    assert_eq!(released.status.as_u16(), 200);
    assert_eq!(released.body["moves"][0]["san"], "d4");
    assert!(started.elapsed() < Duration::from_secs(10));
    let events = read_events(&mut stream, 1).await;
    assert_eq!(events[0]["type"], "opponent_moved");
}

// A stream lasts as long as its token: revoked, the stream ends at once;
// expired, it ends at the expiry, and nothing more is delivered with it.
async fn a_stream_ends_with_its_token(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let session = crate::support::sign_up(&app, "bob").await;
    let open = |token: &str| {
        actix_web::test::TestRequest::get()
            .uri("/api/v1/stream/events")
            .insert_header(("Authorization", format!("Bearer {token}")))
            .to_request()
    };
    let personal = post("/api/v1/tokens")
        .token(&session)
        .json(serde_json::json!({"name": "bot", "scopes": ["game:read"]}))
        .send(&app)
        .await;
    let personal = personal.assert_status(201).clone();
    let mut revoked =
        actix_web::test::call_service(&app, open(personal["token"].as_str().unwrap()))
            .await
            .into_body();
    crate::support::delete(format!(
        "/api/v1/tokens/{}",
        personal["id"].as_str().unwrap()
    ))
    .token(&session)
    .send(&app)
    .await
    .assert_status(204);
    until_the_end(&mut revoked).await;

    // The session's access token lasts 15 minutes.
    let mut expiring = actix_web::test::call_service(&app, open(&session))
        .await
        .into_body();
    clock.advance(16 * 60 * 1000);
    // Something to deliver: the stream looks, finds its token expired, and ends.
    post("/api/v1/challenges")
        .token(&alice)
        .json(serde_json::json!({"rules": "standard", "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await
        .assert_status(201);
    let sent = until_the_end(&mut expiring).await;
    assert!(!sent.contains("challenge_received"), "{sent}");

    // A refresh token used twice revokes its whole sign-in, the access
    // token in use too: the streams held with it end.
    let signed_in = crate::support::sign_in(&app, "bob", crate::support::PASSWORD).await;
    let access = signed_in["access_token"].as_str().unwrap().to_owned();
    let mut stolen = actix_web::test::call_service(&app, open(&access))
        .await
        .into_body();
    let refresh = || {
        post("/api/v1/auth/refresh")
            .json(serde_json::json!({"refresh_token": signed_in["refresh_token"]}))
    };
    refresh().send(&app).await.assert_status(200);
    refresh()
        .send(&app)
        .await
        .assert_problem(401, "refresh_token_reused");
    until_the_end(&mut stolen).await;
    get("/api/v1/account")
        .token(&access)
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
}

/// A server that takes connections and never answers.
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

/// A server that answers every request with a redirect to `target`.
fn redirecting_to(target: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let target = target.to_owned();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 307 X\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    url
}

// Webhooks are requests the server makes: by default they reach public
// addresses only, whatever the spelling, checked at registration and again
// at delivery (a URL stored before the rule is refused there), and a
// redirect is never followed. The account sees a status or `refused`, not
// the error of a connection it could use to scan ports.
async fn webhooks_reach_public_addresses_only(db: Db) {
    use kingpost_api::{db::schema::webhooks as table, server};

    let clock = clock();
    let pool = server::open_database(&db.url()).unwrap();
    let mut strict = TestApp::on(&db)
        .pool(pool.clone())
        .clock(clock.clone())
        .app_state();
    strict.allow_private_webhooks = false;
    let strict = actix_web::web::Data::new(strict);
    let app = init(strict.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let register = |url: &str| {
        post("/api/v1/webhooks").token(&bob).json(
            json!({"url": url, "secret": "a shared secret of some length", "events": ["challenge_received"]}),
        )
    };
    let target = receiver(vec![]);
    for url in [
        target.url.as_str(),
        "http://localhost:9/hook",
        "http://2130706433/hook",
        "http://127.1/hook",
        "http://user:pass@example.com/hook",
        "http://[::1]/hook",
        "http://169.254.169.254/latest",
        "http://example.com/a\r\nX-Injected: 1",
    ] {
        register(url)
            .send(&app)
            .await
            .assert_problem(422, "invalid_webhook");
    }
    // A webhook stored before the rule: refused at delivery, nothing sent.
    {
        use diesel::prelude::*;
        let mut conn = pool.get().unwrap();
        let bob_id: String = kingpost_api::db::schema::accounts::table
            .filter(kingpost_api::db::schema::accounts::username.eq("bob"))
            .select(kingpost_api::db::schema::accounts::id)
            .first(&mut **conn)
            .unwrap();
        diesel::insert_into(table::table)
            .values((
                table::id.eq("old-hook-000000"),
                table::account_id.eq(&bob_id),
                table::url.eq(&target.url),
                table::secret.eq("a shared secret of some length"),
                table::kinds.eq("challenge_received"),
                table::created_at.eq(clock.now()),
            ))
            .execute(&mut **conn)
            .unwrap();
    }
    start_standard_game(&app, &alice, &bob, "bob").await;
    let sender = webhooks::Sender::new(false);
    assert_eq!(deliver_once(&strict, &sender).await.unwrap(), 1);
    let log = get("/api/v1/webhooks/old-hook-000000/deliveries")
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(
        log.body["deliveries"][0]["last_error"],
        "refused: not a public address"
    );
    assert!(target.received.lock().unwrap().is_empty());

    // With private targets allowed (development), still no redirect is followed.
    let open = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(open.clone()).await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let beyond = receiver(vec![]);
    post("/api/v1/webhooks")
        .token(&carol)
        .json(json!({"url": redirecting_to(&beyond.url), "secret": "a shared secret of some length", "events": ["challenge_received"]}))
        .send(&app)
        .await
        .assert_status(201);
    post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "carol"}))
        .send(&app)
        .await
        .assert_status(201);
    clock.advance(HOUR);
    deliver_once(&open, &webhooks::Sender::new(true))
        .await
        .unwrap();
    let hooks = get("/api/v1/webhooks").token(&carol).send(&app).await;
    let id = hooks.body["webhooks"][0]["id"].as_str().unwrap().to_owned();
    let log = get(format!("/api/v1/webhooks/{id}/deliveries"))
        .token(&carol)
        .send(&app)
        .await;
    assert_eq!(log.body["deliveries"][0]["last_status"], 307);
    assert!(
        beyond.received.lock().unwrap().is_empty(),
        "the redirect was followed"
    );
}

// Ten webhooks of one account that never answer do not hold another
// account's delivery back: attempts run at once, each with its own timeout,
// and one account's take at most four of an instance's places. Two
// instances deliver from the same database at once: each delivery is
// claimed by one of them, so none is sent twice.
async fn a_slow_webhook_delays_only_its_own(db: Db) {
    let clock = clock();
    let shared = TestApp::on(&db).clock(clock.clone()).state();
    let other = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(shared.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let slow = sign_up_for_a_year(&app, "slow").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let secret = "a shared secret of some length";
    for _ in 0..webhooks::MAX_PER_ACCOUNT {
        post("/api/v1/webhooks")
            .token(&slow)
            .json(json!({"url": black_hole(), "secret": secret, "events": ["challenge_received"]}))
            .send(&app)
            .await
            .assert_status(201);
    }
    post("/api/v1/webhooks")
        .token(&slow)
        .json(json!({"url": black_hole(), "secret": secret, "events": ["challenge_received"]}))
        .send(&app)
        .await
        .assert_problem(422, "too_many_webhooks");
    let prompt = receiver(vec![]);
    post("/api/v1/webhooks")
        .token(&bob)
        .json(json!({"url": prompt.url, "secret": secret, "events": ["challenge_received"]}))
        .send(&app)
        .await
        .assert_status(201);
    for opponent in ["slow", "bob"] {
        post("/api/v1/challenges")
            .token(&alice)
            .json(json!({"rules": "standard", "days_per_move": 3, "opponent": opponent}))
            .send(&app)
            .await
            .assert_status(201);
    }
    let started = std::time::Instant::now();
    let batch = |state: actix_web::web::Data<kingpost_api::state::AppState>| {
        let sender = webhooks::Sender::new(true);
        actix_web::rt::spawn(async move { deliver_once(&state, &sender).await })
    };
    let (one, two) = (batch(shared.clone()), batch(other.clone()));
    while prompt.received.lock().unwrap().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the prompt receiver waited on the slow ones"
        );
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !one.is_finished() || !two.is_finished(),
        "the slow attempts are still running"
    );
    let claimed = one.await.unwrap().unwrap() + two.await.unwrap().unwrap();
    // Each instance claims up to its share of slow's (both may race for the
    // same ones: one wins each), and bob's once.
    let per_account = webhooks::IN_FLIGHT_PER_ACCOUNT;
    assert!(
        (per_account + 1..=2 * per_account + 1).contains(&claimed),
        "{claimed}"
    );
    assert_eq!(prompt.received.lock().unwrap().len(), 1, "sent once");
    let hooks = get("/api/v1/webhooks").token(&slow).send(&app).await;
    let mut attempted = 0;
    for hook in hooks.body["webhooks"].as_array().unwrap() {
        let id = hook["id"].as_str().unwrap();
        let log = get(format!("/api/v1/webhooks/{id}/deliveries"))
            .token(&slow)
            .send(&app)
            .await;
        let attempts = log.body["deliveries"][0]["attempts"].as_i64().unwrap();
        assert!(attempts <= 1, "attempted once at most");
        attempted += attempts;
    }
    assert_eq!(
        attempted as usize,
        claimed - 1,
        "each claimed one attempted once"
    );
}

// A backlog of hundreds of one account's deliveries, due before another
// account's, is not sent first: deliveries are claimed in turns across
// accounts, an account's at most four in flight on an instance, so the
// other's first delivery is claimed with the backlog's first, and again
// while the backlog's places are taken.
async fn one_accounts_backlog_delays_only_its_own(db: Db) {
    use diesel::RunQueryDsl;
    use kingpost_api::models::event;

    let clock = clock();
    let shared = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(shared.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let noisy = sign_up_for_a_year(&app, "noisy").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let secret = "a shared secret of some length";
    let mut noisy_hooks = Vec::new();
    for _ in 0..webhooks::MAX_PER_ACCOUNT {
        let made = post("/api/v1/webhooks")
            .token(&noisy)
            .json(json!({"url": black_hole(), "secret": secret, "events": ["challenge_received"]}))
            .send(&app)
            .await;
        noisy_hooks.push(made.assert_status(201)["id"].as_str().unwrap().to_owned());
    }
    let account = get("/api/v1/account").token(&noisy).send(&app).await;
    let noisy_id = account.body["id"].as_str().unwrap().to_owned();
    // 600 deliveries queued an hour ago, due since, of one event.
    let (now, hour_ago) = (clock.now(), clock.now() - HOUR);
    {
        let mut conn = shared.pool.get().unwrap();
        diesel::sql_query(format!(
            "INSERT INTO events (id, account_id, kind, data, created_at) \
             VALUES (1000000, '{noisy_id}', 'challenge_received', '{{}}', {hour_ago})"
        ))
        .execute(&mut **conn)
        .unwrap();
        for n in 0..600 {
            let hook = &noisy_hooks[n % noisy_hooks.len()];
            diesel::sql_query(format!(
                "INSERT INTO deliveries (id, webhook_id, event_id, status, attempts, \
                 next_attempt_at, created_at) VALUES ('backlog-{n}', '{hook}', 1000000, \
                 'pending', 0, {}, {hour_ago})",
                hour_ago + n as i64
            ))
            .execute(&mut **conn)
            .unwrap();
        }
    }
    assert!(now > hour_ago);
    let prompt = receiver(vec![]);
    post("/api/v1/webhooks")
        .token(&carol)
        .json(json!({"url": prompt.url, "secret": secret, "events": ["challenge_received"]}))
        .send(&app)
        .await
        .assert_status(201);
    let claim = |in_flight: &mut webhooks::InFlight| {
        let mut conn = shared.pool.get().unwrap();
        webhooks::claim_due(&mut conn, clock.now(), in_flight).unwrap()
    };
    let owners = |claimed: &[webhooks::Due]| -> (usize, usize) {
        let noisy = claimed
            .iter()
            .filter(|d| d.account_id.as_str() == noisy_id)
            .count();
        (noisy, claimed.len() - noisy)
    };
    let mut in_flight = webhooks::InFlight::default();
    let first = claim(&mut in_flight);
    assert_eq!(owners(&first), (webhooks::IN_FLIGHT_PER_ACCOUNT, 0));
    // Carol's delivery, due after the whole backlog, is claimed next, while
    // the backlog's places are still taken.
    post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "carol"}))
        .send(&app)
        .await
        .assert_status(201);
    let next = claim(&mut in_flight);
    assert_eq!(owners(&next), (0, 1), "carol's, and none of the backlog's");
    // And with nothing in flight, in turns: the backlog's first and hers.
    let mut conn = shared.pool.get().unwrap();
    let again = event::due_fairly(&mut conn, clock.now() + 2 * HOUR, 4, 2).unwrap();
    let accounts: Vec<&str> = again.iter().map(|d| d.account_id.as_str()).collect();
    assert!(accounts.contains(&noisy_id.as_str()), "{accounts:?}");
    assert_eq!(accounts.len(), 2, "{accounts:?}");
}

// Streams and long polls hold a connection each: 20 at once for an account
// and 50 for an address answer 429 beyond; the instance's own room (here 60)
// a 503. A closed stream gives its place back. Many streams of one account
// all get each event.
async fn held_requests_are_capped(db: Db) {
    use kingpost_api::budgets::{HELD_PER_ACCOUNT, HELD_PER_ADDRESS, HeldSlots};

    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut small = TestApp::on(&db).pool(pool).app_state();
    small.held = Arc::new(HeldSlots::new(60));
    let app = init(actix_web::web::Data::new(small)).await;
    let open = |token: &str, from: &str| {
        actix_web::test::TestRequest::get()
            .uri("/api/v1/stream/events")
            .insert_header(("Authorization", format!("Bearer {token}")))
            .peer_addr(from.parse().unwrap())
            .to_request()
    };
    let mut accounts = Vec::new();
    for name in ["alice", "bob", "carol", "dave"] {
        accounts.push(sign_up_for_a_year(&app, name).await);
    }
    let home = "192.0.2.1:1000";
    let mut alices = Vec::new();
    for _ in 0..HELD_PER_ACCOUNT {
        let response = actix_web::test::call_service(&app, open(&accounts[0], home)).await;
        assert_eq!(response.status().as_u16(), 200);
        alices.push(response.into_body());
    }
    let refused = actix_web::test::call_service(&app, open(&accounts[0], "192.0.2.2:1000")).await;
    assert_eq!(refused.status().as_u16(), 429);
    assert!(refused.headers().get("retry-after").is_some());
    get("/api/v1/games/nosuchgame?wait=5")
        .token(&accounts[0])
        .send(&app)
        .await
        .assert_problem(429, "rate_limited");
    // The address's share: 50 across accounts.
    let mut others = Vec::new();
    for token in [&accounts[1], &accounts[2]] {
        for _ in 0..(HELD_PER_ADDRESS - HELD_PER_ACCOUNT) / 2 {
            let response = actix_web::test::call_service(&app, open(token, home)).await;
            assert_eq!(response.status().as_u16(), 200);
            others.push(response.into_body());
        }
    }
    let refused = actix_web::test::call_service(&app, open(&accounts[3], home)).await;
    assert_eq!(refused.status().as_u16(), 429);
    // The instance's room: 60 in all here.
    for n in 0..10 {
        let from = format!("198.51.100.{n}:1000");
        let response = actix_web::test::call_service(&app, open(&accounts[3], &from)).await;
        assert_eq!(response.status().as_u16(), 200);
        others.push(response.into_body());
    }
    let full = actix_web::test::call_service(&app, open(&accounts[3], "203.0.113.1:1000")).await;
    assert_eq!(full.status().as_u16(), 503);
    // A stream closed gives its place back.
    drop(alices.pop());
    let again = actix_web::test::call_service(&app, open(&accounts[0], "203.0.113.2:1000")).await;
    assert_eq!(again.status().as_u16(), 200);
    alices.push(again.into_body());

    // Every stream of the account hears the event, read once for all of them.
    post("/api/v1/challenges")
        .token(&accounts[1])
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "alice"}))
        .send(&app)
        .await
        .assert_status(201);
    for body in &mut alices {
        assert_eq!(read_events(body, 1).await[0]["type"], "challenge_received");
    }
}
