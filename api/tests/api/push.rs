//! Web Push subscriptions and the pushes queued for them. Delivery to a
//! push service that checks the VAPID signature and decrypts the payload
//! with an independent implementation is `scripts/push-test.py`'s.

use actix_web::http::Method;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use diesel::prelude::*;
use kingpost_api::{db::schema::push_outbox, domain::push, state::AppState};
use serde_json::{Value, json};

use crate::support::{Call, Db, TestApp, delete, get, init, play_all, post, start_standard_game};

crate::on_both_databases!(
    without_a_vapid_key_the_server_says_it_pushes_nothing,
    a_subscription_is_checked_before_it_is_kept,
    a_move_is_pushed_to_each_browser_of_the_opponent
);

/// A subscription as a browser gives it: a valid P-256 point and secret.
pub(crate) fn subscription(endpoint: &str) -> Value {
    // The generator of P-256, uncompressed: a point on the curve.
    let point = "046B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C2964FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5";
    let point: Vec<u8> = (0..point.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&point[i..i + 2], 16).unwrap())
        .collect();
    json!({
        "endpoint": endpoint,
        "expirationTime": null,
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(point), "auth": URL_SAFE_NO_PAD.encode([7u8; 16])},
    })
}

fn subscribe<'a>(token: &'a str, body: Value) -> Call<'a> {
    post("/api/v1/push-subscriptions").token(token).json(body)
}

/// The pushes queued, as (subscription, event) ids.
fn queued(state: &AppState) -> Vec<(String, i64)> {
    let mut conn = state.pool.get().unwrap();
    push_outbox::table
        .order(push_outbox::id)
        .select((push_outbox::subscription_id, push_outbox::event_id))
        .load(&mut **conn)
        .unwrap()
}

// README, Web Push: without a VAPID key the routes that need one say so.
async fn without_a_vapid_key_the_server_says_it_pushes_nothing(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    get("/api/v1/push/public-key")
        .send(&app)
        .await
        .assert_problem(409, "push_off");
    subscribe(&alice, subscription("https://push.example.org/a"))
        .send(&app)
        .await
        .assert_problem(409, "push_off");
}

// README, Web Push: an endpoint is held to the webhooks' rules; the key
// must be a P-256 point and the secret 16 bytes; ten browsers an account.
async fn a_subscription_is_checked_before_it_is_kept(db: Db) {
    let state = TestApp::on(&db).push().state();
    let app = init(state.clone()).await;
    let alice = crate::support::sign_up(&app, "alice").await;
    let key = get("/api/v1/push/public-key").send(&app).await;
    let key = key.assert_status(200)["public_key"]
        .as_str()
        .unwrap()
        .to_owned();
    let point = URL_SAFE_NO_PAD.decode(&key).unwrap();
    assert_eq!(
        (point.len(), point[0]),
        (65, 4),
        "an uncompressed P-256 point"
    );

    let mut bad_key = subscription("https://push.example.org/a");
    bad_key["keys"]["p256dh"] = json!(URL_SAFE_NO_PAD.encode([4u8; 65]));
    let mut bad_auth = subscription("https://push.example.org/a");
    bad_auth["keys"]["auth"] = json!("c2hvcnQ");
    for body in [subscription("ftp://push.example.org/a"), bad_key, bad_auth] {
        subscribe(&alice, body)
            .send(&app)
            .await
            .assert_problem(422, "invalid_subscription");
    }
    for n in 0..10 {
        subscribe(
            &alice,
            subscription(&format!("https://push.example.org/{n}")),
        )
        .send(&app)
        .await
        .assert_status(201);
    }
    // The same endpoint again replaces its subscription; an eleventh is refused.
    subscribe(&alice, subscription("https://push.example.org/3"))
        .send(&app)
        .await
        .assert_status(201);
    subscribe(&alice, subscription("https://push.example.org/10"))
        .send(&app)
        .await
        .assert_problem(422, "too_many_subscriptions");
    let list = get("/api/v1/push-subscriptions")
        .token(&alice)
        .send(&app)
        .await;
    let list = list.assert_status(200)["subscriptions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(list.len(), 10);
    let id = list[0]["id"].as_str().unwrap();
    delete(format!("/api/v1/push-subscriptions/{id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    delete(format!("/api/v1/push-subscriptions/{id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
}

// README, Web Push: each event chosen for push is queued once per browser
// of the account, in the event's transaction; the payload, written when
// sent, names the game and the move; of a browser's pushes on one game
// waiting together, the newest alone is sent.
async fn a_move_is_pushed_to_each_browser_of_the_opponent(db: Db) {
    let state = TestApp::on(&db).push().state();
    let app = init(state.clone()).await;
    let alice = crate::support::sign_up(&app, "alice").await;
    let bob = crate::support::sign_up(&app, "bob").await;
    for n in 0..2 {
        subscribe(
            &bob,
            subscription(&format!("https://push.example.org/bob{n}")),
        )
        .send(&app)
        .await
        .assert_status(201);
    }
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    // A challenge and a game started: two events, two browsers.
    assert_eq!(queued(&state).len(), 4);
    play_all(&app, &game, &alice, &bob, &["e2e4"]).await;
    let pushes = queued(&state);
    assert_eq!(pushes.len(), 6);
    let mut conn = state.pool.get().unwrap();
    let now = state.clock.now();
    let leased = push::lease_due(&mut conn, now, 100).unwrap();
    assert_eq!(leased.len(), 6);
    let claim = push::prepare(&mut conn, &state.keys, leased, 100).unwrap();
    push::record(&mut conn, &claim, &[], now).unwrap();
    let ready = claim.ready;
    // Of each browser's pushes on the game, the start and the move, only
    // the move's is sent: its notification would replace the start's.
    let titles: Vec<String> = ready
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.payload).unwrap()["title"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        titles,
        [
            "alice challenges you",
            "alice challenges you",
            "Your move against alice: 1. e4",
            "Your move against alice: 1. e4"
        ]
    );
    let last: Value = serde_json::from_slice(&ready[3].payload).unwrap();
    let id = game["id"].as_str().unwrap();
    assert_eq!(last["url"], format!("/#/games/{id}"));
    assert_eq!(
        (last["tag"].as_str(), ready[3].tag.as_str()),
        (Some(id), id)
    );
    let superseded: i64 = push_outbox::table
        .filter(push_outbox::status.eq("superseded"))
        .count()
        .get_result(&mut **conn)
        .unwrap();
    assert_eq!(superseded, 2);
    drop(conn);

    // Nothing pushed once the settings push no moves.
    Call::new(Method::PUT, "/api/v1/account/notifications")
        .token(&bob)
        .json(json!({"push_events": ["game_finished"]}))
        .send(&app)
        .await
        .assert_status(200);
    play_all(&app, &game, &alice, &bob, &["e7e5", "g1f3"]).await;
    assert_eq!(queued(&state).len(), 6);
}
