//! Messages between a game's two players, with a move or alone, and mutes.

use actix_web::{http::Method, test::TestRequest};
use serde_json::{Value, json};

use crate::support::{
    Call, Db, Served, TestApp, delete, get, path_of, post, start_standard_game, until_the_end,
};

crate::on_both_databases!(
    players_speak_with_moves_and_alone,
    a_bad_message_changes_nothing,
    a_muted_account_is_not_heard
);

fn put(path: impl Into<String>) -> Call<'static> {
    Call::new(Method::PUT, path)
}

/// The kinds and data of what `token`'s account was told, from the log.
pub(crate) async fn told<B: actix_web::body::MessageBody + Unpin>(
    app: &impl Served<B>,
    token: &str,
) -> Vec<Value> {
    let request = TestRequest::get()
        .uri("/api/v1/stream/events?since=0&follow=false")
        .insert_header(("Authorization", format!("Bearer {token}")))
        .to_request();
    let mut body = actix_web::test::call_service(app, request)
        .await
        .into_body();
    until_the_end(&mut body)
        .await
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The texts of the messages `token`'s account reads in the game at `path`.
async fn texts<B: actix_web::body::MessageBody>(
    app: &impl Served<B>,
    path: &str,
    token: &str,
) -> Vec<String> {
    let list = get(format!("{path}/messages")).token(token).send(app).await;
    list.assert_status(200)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

// README, messages: a message goes with a move (in its transaction) or
// alone, reaches the opponent as an event, is read by the two players
// alone and never written into the game's PGN.
async fn players_speak_with_moves_and_alone(db: Db) {
    let (app, [alice, bob, carol]) = TestApp::on(&db).with_users(["alice", "bob", "carol"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let moved = post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "e4", "ply": 0, "message": "  Good luck, Bob!\nHave fun.  "}))
        .send(&app)
        .await;
    assert_eq!(moved.assert_status(200)["ply"], 1);
    let said = post(format!("{path}/messages"))
        .token(&bob)
        .json(json!({"text": "Thanks, you too"}))
        .send(&app)
        .await;
    let said = said.assert_status(201);
    assert_eq!(said["from"], "bob");
    assert_eq!(said["ply"], 1);

    let list = get(format!("{path}/messages"))
        .token(&alice)
        .send(&app)
        .await;
    let messages = list.assert_status(200)["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["from"], "alice");
    assert_eq!(messages[0]["ply"], 1, "said after the move it went with");
    assert_eq!(messages[0]["text"], "Good luck, Bob!\nHave fun.");
    assert_eq!(messages[1]["text"], "Thanks, you too");
    let first = messages[0]["id"].as_i64().unwrap();
    let after = get(format!("{path}/messages?after={first}"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(
        after.assert_status(200)["messages"][0]["text"],
        "Thanks, you too"
    );

    // Each was told of the other's message, with it, in the game.
    let heard = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["type"] == "message_received")
            .inspect(|e| assert_eq!(e["game_id"], game["id"]))
            .map(|e| e["data"]["message"]["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        heard(&told(&app, &bob).await),
        ["Good luck, Bob!\nHave fun."]
    );
    assert_eq!(heard(&told(&app, &alice).await), ["Thanks, you too"]);

    // Another account reads nothing and says nothing.
    get(format!("{path}/messages"))
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(403, "not_a_player");
    post(format!("{path}/messages"))
        .token(&carol)
        .json(json!({"text": "hi"}))
        .send(&app)
        .await
        .assert_problem(403, "not_a_player");
    get("/api/v1/games/nosuchgame/messages")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    // The PGN is the game's, not the players' conversation.
    let pgn = get(format!("{path}/pgn")).send(&app).await;
    let text = pgn.assert_status(200).as_str().unwrap().to_owned();
    assert!(text.contains("1. e4"), "{text}");
    assert!(
        !text.contains("Good luck") && !text.contains("Thanks"),
        "{text}"
    );

    // After the game, the players may still speak.
    post(format!("{path}/resign"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    post(format!("{path}/messages"))
        .token(&bob)
        .json(json!({"text": "Well played"}))
        .send(&app)
        .await
        .assert_status(201);
}

// README, messages: 1 to 500 characters of plain text, 30 an hour; a move
// whose message is refused is not played.
async fn a_bad_message_changes_nothing(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let long = "x".repeat(501);
    for bad in ["", "   ", long.as_str(), "ring \u{7} the bell"] {
        post(format!("{path}/moves"))
            .token(&alice)
            .json(json!({"move": "e4", "ply": 0, "message": bad}))
            .send(&app)
            .await
            .assert_problem(422, "invalid_message");
        post(format!("{path}/messages"))
            .token(&alice)
            .json(json!({"text": bad}))
            .send(&app)
            .await
            .assert_problem(422, "invalid_message");
    }
    let state = get(&path).token(&alice).send(&app).await;
    assert_eq!(state.assert_status(200)["ply"], 0, "no move was played");
    assert!(texts(&app, &path, &bob).await.is_empty());

    // 500 characters, of any script, are one message.
    let full = "é".repeat(500);
    post(format!("{path}/messages"))
        .token(&alice)
        .json(json!({"text": full}))
        .send(&app)
        .await
        .assert_status(201);
    for i in 1..30 {
        post(format!("{path}/messages"))
            .token(&alice)
            .json(json!({"text": format!("message {i}")}))
            .send(&app)
            .await
            .assert_status(201);
    }
    let refused = post(format!("{path}/messages"))
        .token(&alice)
        .json(json!({"text": "one too many"}))
        .send(&app)
        .await;
    refused.assert_problem(429, "rate_limited");
    // The test's clock stands still: free again in the hour.
    assert_eq!(refused.headers.get("retry-after").unwrap(), "3600");
    post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "e4", "ply": 0, "message": "and with a move"}))
        .send(&app)
        .await
        .assert_problem(429, "rate_limited");
    let state = get(&path).token(&alice).send(&app).await;
    assert_eq!(state.assert_status(200)["ply"], 0, "the move went with it");
    assert_eq!(texts(&app, &path, &bob).await.len(), 30);
    // The move alone is played.
    post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "e4", "ply": 0}))
        .send(&app)
        .await
        .assert_status(200);
}

// README, messages: a muted account's messages and challenges no longer
// reach the one who muted it; unmuted, they do again.
async fn a_muted_account_is_not_heard(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    put("/api/v1/account/mutes/alice")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(204);
    put("/api/v1/account/mutes/ALICE")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(204);
    let mutes = get("/api/v1/account/mutes").token(&bob).send(&app).await;
    assert_eq!(mutes.assert_status(200)["muted"], json!(["alice"]));
    put("/api/v1/account/mutes/bob")
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "invalid_username");
    put("/api/v1/account/mutes/nobody")
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "e4", "ply": 0, "message": "can you hear me?"}))
        .send(&app)
        .await
        .assert_status(200);
    post(format!("{path}/messages"))
        .token(&bob)
        .json(json!({"text": "I mute you but I may speak"}))
        .send(&app)
        .await
        .assert_status(201);
    assert_eq!(
        texts(&app, &path, &bob).await,
        ["I mute you but I may speak"]
    );
    assert_eq!(
        texts(&app, &path, &alice).await,
        ["can you hear me?", "I mute you but I may speak"]
    );
    let bobs = told(&app, &bob).await;
    assert!(
        bobs.iter().all(|e| e["type"] != "message_received"),
        "{bobs:?}"
    );
    assert!(
        bobs.iter().any(|e| e["type"] == "opponent_moved"),
        "the move is heard"
    );
    post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await
        .assert_problem(403, "forbidden");

    delete("/api/v1/account/mutes/alice")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(204);
    assert_eq!(
        texts(&app, &path, &bob).await,
        ["can you hear me?", "I mute you but I may speak"]
    );
    post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await
        .assert_status(201);
}
