//! Every mistake a client can make with a game gets a clear 4xx problem
//! and changes nothing.

use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{Db, TestApp, get, play_all, post, start_standard_game},
};

on_both_databases!(
    move_errors_change_nothing,
    request_shape_errors,
    unknown_routes_and_games,
    a_database_that_cannot_write_answers_503
);

async fn move_errors_change_nothing(db: Db) {
    let (app, [alice, bob, carol]) = TestApp::on(&db).with_users(["alice", "bob", "carol"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let game = play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let id = game["id"].as_str().unwrap();
    let path = format!("/api/v1/games/{id}/moves");
    let before = get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    let etag = before.headers.get("etag").unwrap().clone();

    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            bob.as_str(),
            json!({"move": "e5", "ply": 0}),
            409,
            "stale_ply",
        ),
        (
            bob.as_str(),
            json!({"move": "e5", "ply": 2}),
            409,
            "stale_ply",
        ),
        (
            alice.as_str(),
            json!({"move": "d4", "ply": 1}),
            403,
            "not_your_turn",
        ),
        (
            carol.as_str(),
            json!({"move": "e5", "ply": 1}),
            403,
            "not_a_player",
        ),
        (
            bob.as_str(),
            json!({"move": "e4e5", "ply": 1}),
            422,
            "illegal_move",
        ),
        (
            bob.as_str(),
            json!({"move": "Ke7", "ply": 1}),
            422,
            "illegal_move",
        ),
        (
            bob.as_str(),
            json!({"move": "hello", "ply": 1}),
            422,
            "invalid_move_syntax",
        ),
        (
            bob.as_str(),
            json!({"move": "e5", "ply": "1"}),
            422,
            "invalid_body",
        ),
        (bob.as_str(), json!({"move": "e5"}), 422, "invalid_body"),
        (
            bob.as_str(),
            json!({"move": "e5", "ply": 1, "promotion": "q"}),
            422,
            "invalid_body",
        ),
    ];
    for (token, body, status, code) in cases {
        let answer = post(&path).token(token).json(body.clone()).send(&app).await;
        answer.assert_problem(status, code);
        if code == "stale_ply" {
            assert_eq!(answer.body["current_ply"], 1, "{body}");
        }
        if code == "illegal_move" {
            let named = body["move"].as_str().unwrap();
            assert!(
                answer.body["detail"].as_str().unwrap().contains(named),
                "the error names the move"
            );
        }
    }
    // Not JSON at all, and a body over the limit.
    post(&path)
        .token(&bob)
        .raw("application/json", "{\"move\": \"e5\",")
        .send(&app)
        .await
        .assert_problem(400, "malformed_request");
    post(&path)
        .token(&bob)
        .raw("text/plain", "e5")
        .send(&app)
        .await
        .assert_problem(400, "malformed_request");
    let huge = format!("{{\"move\": \"{}\", \"ply\": 1}}", "e".repeat(100_000));
    post(&path)
        .token(&bob)
        .raw("application/json", huge)
        .send(&app)
        .await
        .assert_problem(413, "payload_too_large");

    let after = get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(after.headers.get("etag").unwrap(), &etag, "nothing changed");
    assert_eq!(after.body, before.body);

    // The retried move after success is a stale ply, not a second move.
    let ok = post(&path)
        .token(&bob)
        .json(json!({"move": "e5", "ply": 1}))
        .send(&app)
        .await;
    ok.assert_status(200);
    post(&path)
        .token(&bob)
        .json(json!({"move": "e5", "ply": 1}))
        .send(&app)
        .await
        .assert_problem(409, "stale_ply");
    let game = get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(game.body["moves"].as_array().unwrap().len(), 2);

    // A finished game takes no more moves.
    let game = play_all(
        &app,
        &game.body,
        &alice,
        &bob,
        &["Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"],
    )
    .await;
    assert_eq!(game["termination"], "checkmate");
    post(&path)
        .token(&bob)
        .json(json!({"move": "Ke7", "ply": 7}))
        .send(&app)
        .await
        .assert_problem(409, "game_finished");
}

async fn request_shape_errors(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    let account = |body: Value| post("/api/v1/accounts").json(body);
    account(json!({"username": "ab", "password": "long enough"}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_username");
    account(json!({"username": "-dash", "password": "long enough"}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_username");
    for password in ["short", "my name is Dave!", "Password1", "zzzzzzzzzz"] {
        account(json!({"username": "dave", "password": password}))
            .send(&app)
            .await
            .assert_problem(422, "invalid_password");
    }
    account(json!({"username": "ALICE", "password": "long enough"}))
        .send(&app)
        .await
        .assert_problem(409, "username_taken");
    account(json!({"username": "dave"}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_body");

    let analyze = |body: Value| post("/api/v1/positions/analyze").json(body);
    analyze(json!({"rules": "atomic", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}))
        .send(&app)
        .await
        .assert_problem(422, "unknown_rules");
    let bad_fen = analyze(json!({"rules": "standard", "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1"})).send(&app).await;
    bad_fen.assert_problem(422, "invalid_fen");
    assert!(bad_fen.body["detail"].as_str().unwrap().contains("field 5"));
    let impossible =
        analyze(json!({"rules": "standard", "fen": "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"}))
            .send(&app)
            .await;
    impossible.assert_problem(422, "invalid_fen");
    assert!(
        impossible.body["detail"]
            .as_str()
            .unwrap()
            .contains("field 2"),
        "the error names the field"
    );
    // docs/spec/rules.md §2.4: a position the rule set has declared won has
    // no legal moves; the analysis shows the outcome instead.
    let won = analyze(json!({"rules": "captive-kings", "fen": "8/8/8/4k3/8/8/8/2K5 b - - 1 1 -"}))
        .send(&app)
        .await;
    let won = won.assert_status(200);
    assert_eq!(won["legal_moves"], json!([]));
    assert_eq!(
        won["outcome"],
        json!({"result": "1-0", "termination": "goal_rank"})
    );
    let ok = analyze(json!({"rules": "switching", "fen": "1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1"}))
        .send(&app)
        .await;
    let moves = ok.assert_status(200)["legal_moves"]
        .as_array()
        .unwrap()
        .clone();
    assert!(moves.contains(&json!({"uci": "b8c8", "san": "Rb8c8#", "kind": "switch"})));

    let list = get("/api/v1/games?limit=0").token(&alice).send(&app).await;
    list.assert_problem(422, "invalid_query");
    get("/api/v1/games?status=nonsense")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
    get("/api/v1/games?cursor=%%%")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_cursor");
    get("/api/v1/games?cursor=bm9wZQ")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_cursor");
}

async fn unknown_routes_and_games(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    get("/api/v1/games/nope")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    post("/api/v1/games/nope/moves")
        .token(&alice)
        .json(json!({"move": "e4", "ply": 0}))
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get("/api/v1/nowhere")
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get("/nowhere")
        .send(&app)
        .await
        .assert_problem(404, "not_found");
}

// A database that cannot write (here opened read-only: a SQLite file so
// opened, a Postgres whose transactions are read-only, as on a standby) is
// the service's trouble, never the client's: a move, a sign-up and an
// import are `503 service_busy` with `Retry-After`, and reads still serve.
// (A full disk is the same answer: `scripts/full-disk-test.py`.)
async fn a_database_that_cannot_write_answers_503(db: Db) {
    use kingpost_api::db;

    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let id = game["id"].as_str().unwrap();

    let read_only = match &db {
        Db::Sqlite(path) => format!("file:{}?mode=ro", path.display()),
        Db::Postgres { .. } => format!("{}%20-cdefault_transaction_read_only%3Don", db.url()),
    };
    let pool = db::connect(&read_only).unwrap();
    let frozen = TestApp::on(&db).pool(pool).start().await;
    let refused = [
        post(format!("/api/v1/games/{id}/moves"))
            .token(&alice)
            .json(json!({"move": "e4", "ply": 0}))
            .send(&frozen)
            .await,
        post("/api/v1/accounts")
            .json(json!({"username": "carol", "password": crate::support::PASSWORD}))
            .send(&frozen)
            .await,
        post("/api/v1/imports")
            .token(&alice)
            .raw("application/x-chess-pgn", "[Event \"x\"]\n\n1. e4 *\n")
            .send(&frozen)
            .await,
    ];
    for answer in &refused {
        answer.assert_problem(503, "service_busy");
        assert_eq!(answer.headers.get("retry-after").unwrap(), "30");
    }
    get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&frozen)
        .await
        .assert_status(200);
    let after = get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(after.assert_status(200)["ply"], 0, "nothing was changed");
}
