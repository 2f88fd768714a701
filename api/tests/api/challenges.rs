//! Challenges: made, listed, accepted, declined, cancelled, refused.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::{
    on_both_databases,
    support::{Db, TestApp, delete, get, init, post, sign_up, sign_up_for_a_year, until_parked},
};

on_both_databases!(
    challenge_lifecycle,
    challenge_refusals,
    a_challenge_to_a_player_is_seen_by_its_two_sides_alone,
    a_position_that_is_over_starts_nothing,
    seeks_arrive_in_a_long_poll_as_they_are_opened_and_withdrawn
);

async fn challenge_lifecycle(db: Db) {
    let (app, [alice, bob, carol]) = TestApp::on(&db).with_users(["alice", "bob", "carol"]).await;

    let direct = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "switching", "start": {"kind": "chess960"}, "days_per_move": 7, "opponent": "Bob"}))
        .send(&app)
        .await;
    let direct = direct.assert_status(201).clone();
    let id = direct["id"].as_str().unwrap();
    let drawn = direct["start"]["id"].as_u64().unwrap();
    assert!(drawn < 960, "a Chess960 array is drawn when none is given");
    assert_eq!(direct["variant"], "Switching 960");
    assert_eq!(direct["color"], "random");
    assert_eq!(direct["opponent"]["username"], "bob");

    let open = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "bunker-leap", "start": {"kind": "shuffle", "id": 1000}, "days_per_move": 1, "color": "black"}))
        .send(&app)
        .await;
    let open_id = open.assert_status(201)["id"].as_str().unwrap().to_owned();

    let bobs = get("/api/v1/challenges").token(&bob).send(&app).await;
    let bobs = bobs.assert_status(200);
    assert_eq!(bobs["incoming"][0]["id"], id);
    assert_eq!(bobs["open"][0]["id"], open_id.as_str());
    let alices = get("/api/v1/challenges").token(&alice).send(&app).await;
    assert_eq!(alices.body["outgoing"].as_array().unwrap().len(), 2);
    assert_eq!(
        alices.body["open"],
        json!([]),
        "one's own open challenges are outgoing"
    );

    // Carol cannot take a challenge addressed to Bob, Bob can.
    post(format!("/api/v1/challenges/{id}/accept"))
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    let game = post(format!("/api/v1/challenges/{id}/accept"))
        .token(&bob)
        .send(&app)
        .await;
    let game = game.assert_status(201).clone();
    assert_eq!(game["start"]["id"].as_u64(), Some(drawn));
    assert_eq!(game["days_per_move"], 7);
    let challenge = get(format!("/api/v1/challenges/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(challenge.body["status"], "accepted");
    assert_eq!(challenge.body["game_id"], game["id"]);
    post(format!("/api/v1/challenges/{id}/accept"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(409, "challenge_closed");

    // Anyone but the challenger takes an open challenge; the colour is as asked.
    post(format!("/api/v1/challenges/{open_id}/accept"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    let game = post(format!("/api/v1/challenges/{open_id}/accept"))
        .token(&carol)
        .send(&app)
        .await;
    let game = game.assert_status(201);
    assert_eq!(game["black"]["username"], "alice");
    assert_eq!(game["white"]["username"], "carol");
    assert_eq!(
        game["fen"],
        "nbnqbkrr/pppppppp/8/8/8/8/PPPPPPPP/NBNQBKRR w Kk - 0 1 Ll"
    );

    // Declined and cancelled challenges close.
    let declined = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await;
    let declined_id = declined.body["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/challenges/{declined_id}/decline"))
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    let answer = post(format!("/api/v1/challenges/{declined_id}/decline"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(answer.assert_status(200)["status"], "declined");
    let cancelled = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3}))
        .send(&app)
        .await;
    let cancelled_id = cancelled.body["id"].as_str().unwrap().to_owned();
    delete(format!("/api/v1/challenges/{cancelled_id}"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    let answer = delete(format!("/api/v1/challenges/{cancelled_id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(answer.assert_status(200)["status"], "cancelled");
    post(format!("/api/v1/challenges/{cancelled_id}/accept"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(409, "challenge_closed");
}

async fn challenge_refusals(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    sign_up(&app, "bob").await;
    let challenge = |body: serde_json::Value| post("/api/v1/challenges").token(&alice).json(body);
    challenge(json!({"rules": "atomic", "days_per_move": 3}))
        .send(&app)
        .await
        .assert_problem(422, "unknown_rules");
    challenge(json!({"rules": "standard", "days_per_move": 4}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_days_per_move");
    challenge(json!({"rules": "standard", "start": {"kind": "prechess"}, "days_per_move": 3}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_start");
    challenge(
        json!({"rules": "standard", "start": {"kind": "chess960", "id": 960}, "days_per_move": 3}),
    )
    .send(&app)
    .await
    .assert_problem(422, "invalid_start");
    let bad_fen = challenge(json!({"rules": "standard", "start": {"kind": "fen", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "days_per_move": 3}))
        .send(&app)
        .await;
    bad_fen.assert_problem(422, "invalid_start");
    assert!(bad_fen.body["detail"].as_str().unwrap().contains("no king"));
    challenge(json!({"rules": "standard", "start": {"kind": "random"}, "days_per_move": 3}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_body");
    challenge(json!({"rules": "standard", "days_per_move": 3, "opponent": "nobody"}))
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    challenge(json!({"rules": "standard", "days_per_move": 3, "opponent": "alice"}))
        .send(&app)
        .await
        .assert_problem(422, "self_challenge");
    post("/api/v1/challenges/nope/accept")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
}

// A challenge addressed to a player is theirs and its challenger's: any
// other account is told there is none, as for an unknown id; a challenge
// to anyone is seen by all.
async fn a_challenge_to_a_player_is_seen_by_its_two_sides_alone(db: Db) {
    let (app, [alice, bob, carol]) = TestApp::on(&db).with_users(["alice", "bob", "carol"]).await;
    let made = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await;
    let id = made.assert_status(201)["id"].as_str().unwrap().to_owned();
    for token in [&alice, &bob] {
        get(format!("/api/v1/challenges/{id}"))
            .token(token)
            .send(&app)
            .await
            .assert_status(200);
    }
    get(format!("/api/v1/challenges/{id}"))
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    let seek = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3}))
        .send(&app)
        .await;
    let seek = seek.assert_status(201)["id"].as_str().unwrap().to_owned();
    get(format!("/api/v1/challenges/{seek}"))
        .token(&carol)
        .send(&app)
        .await
        .assert_status(200);
}

// A start whose position is over already (stalemate, mate) starts no game:
// a challenge or a tournament from it is refused, so that no tournament
// waits for ever on games that never began.
async fn a_position_that_is_over_starts_nothing(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = crate::support::sign_up_for_a_year(&app, "alice").await;
    sign_up(&app, "bob").await;
    let stalemate = json!({"kind": "fen", "fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"});
    let mated = json!({"kind": "fen", "fen": "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"});
    for start in [&stalemate, &mated] {
        post("/api/v1/challenges")
            .token(&alice)
            .json(
                json!({"rules": "standard", "days_per_move": 3, "opponent": "bob", "start": start}),
            )
            .send(&app)
            .await
            .assert_problem(422, "invalid_start");
        let deadline =
            kingpost_api::clock::rfc3339(crate::support::START_TIME + kingpost_api::clock::DAY);
        post("/api/v1/tournaments")
            .token(&alice)
            .json(
                json!({"name": "Stalemated", "rules": "standard", "days_per_move": 3,
                         "capacity": 3, "signup_deadline": deadline, "start": start}),
            )
            .send(&app)
            .await
            .assert_problem(422, "invalid_start");
    }
}

// A lobby learns of others' open challenges as they come and go: `/seeks`
// with `wait` and the `ETag` it gave is released by a seek opened, then by
// the same seek withdrawn, and answers 304 when nothing changed.
async fn seeks_arrive_in_a_long_poll_as_they_are_opened_and_withdrawn(db: Db) {
    let state = TestApp::on(&db).state();
    let app = init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let etag_of = |answer: &crate::support::Answer| {
        answer
            .headers
            .get("etag")
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned()
    };
    let first = get("/api/v1/seeks").token(&alice).send(&app).await;
    assert_eq!(first.assert_status(200)["seeks"], json!([]));
    let empty = etag_of(&first);

    let idle = get("/api/v1/seeks?wait=1")
        .token(&alice)
        .header("If-None-Match", empty.clone())
        .send(&app)
        .await;
    assert_eq!(idle.status.as_u16(), 304);

    // Bob opens a seek while Alice waits: her poll returns with it.
    let poll = get("/api/v1/seeks?wait=30")
        .token(&alice)
        .header("If-None-Match", empty.clone())
        .send(&app);
    let parked = state.hub.parked();
    let seek = async {
        until_parked(&state.hub, parked).await;
        post("/api/v1/challenges")
            .token(&bob)
            .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3}))
            .send(&app)
            .await
    };
    let started = Instant::now();
    let (released, created) = futures_util::future::join(poll, seek).await;
    let id = created.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(released.assert_status(200)["seeks"][0]["id"], id.as_str());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "released by the seek"
    );
    let one = etag_of(&released);
    assert_ne!(one, empty);

    // Withdrawn: released again, with the list as it was.
    let poll = get("/api/v1/seeks?wait=30")
        .token(&alice)
        .header("If-None-Match", one)
        .send(&app);
    let parked = state.hub.parked();
    let cancel = async {
        until_parked(&state.hub, parked).await;
        delete(format!("/api/v1/challenges/{id}"))
            .token(&bob)
            .send(&app)
            .await
    };
    let (released, cancelled) = futures_util::future::join(poll, cancel).await;
    cancelled.assert_status(200);
    assert_eq!(released.assert_status(200)["seeks"], json!([]));
    assert_eq!(etag_of(&released), empty, "the same page, the same tag");

    get("/api/v1/seeks?wait=61")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
}
