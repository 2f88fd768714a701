//! The lichess-compatible surface: lichess's paths and shapes, kingpost's
//! tokens and rules. (`scripts/lichess-client` plays it with berserk and
//! checks its answers against lichess's own schemas.)

use actix_web::body::MessageBody;
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{
        Db, TestApp, delete, get, personal_token, play_all, post, read_lines, sign_up,
        sign_up_for_a_year, start_game, start_standard_game, until_the_end,
    },
};

on_both_databases!(
    lichess_clients_challenge_and_play_standard_games,
    kingpost_variants_are_refused_on_the_lichess_surface,
    a_game_stream_follows_its_game_to_the_end,
    the_event_stream_tells_of_challenges_and_games,
    lichess_streams_end_with_their_token,
    a_body_too_large_is_refused_as_lichess_refuses
);

/// The next `count` lines of a lichess stream.
pub(crate) async fn next_lines<B: MessageBody + Unpin>(body: &mut B, count: usize) -> Vec<Value> {
    let lines = read_lines(body, count, |_| {}).await;
    assert_eq!(lines.len(), count, "the stream ended after {lines:#?}");
    lines
}

pub(crate) fn open(path: &str, token: &str) -> actix_http::Request {
    actix_web::test::TestRequest::get()
        .uri(path)
        .insert_header(("Authorization", format!("Bearer {token}")))
        .to_request()
}

/// lichess's error body: `{"error": "..."}` containing `words`.
pub(crate) fn assert_error(answer: &crate::support::Answer, status: u16, words: &str) {
    assert_eq!(answer.status.as_u16(), status, "{:?}", answer.body);
    let error = answer.body["error"].as_str().unwrap_or_default();
    assert!(error.contains(words), "{error:?} lacks {words:?}");
}

// A challenge made and accepted through lichess's calls is a kingpost
// game: moves in UCI, castling written king to destination on the usual
// array (docs/spec/rules.md §7, notation: `e1g1`), each side on its own turn only.
async fn lichess_clients_challenge_and_play_standard_games(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "Alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;

    let account = get("/api/account").token(&alice).send(&app).await;
    let account = account.assert_status(200);
    assert_eq!(
        (&account["id"], &account["username"]),
        (&json!("alice"), &json!("Alice"))
    );

    // A correspondence challenge only: `days` required, clocks refused.
    let challenge = |body: Value| post("/api/challenge/bob").token(&alice).json(body);
    let no_days = challenge(json!({"rated": false})).send(&app).await;
    assert_error(&no_days, 400, "`days` is required");
    let clocked = challenge(json!({"clock.limit": 300, "clock.increment": 2}))
        .send(&app)
        .await;
    assert_error(&clocked, 400, "correspondence games only");
    let unknown = post("/api/challenge/nobody")
        .token(&alice)
        .json(json!({"days": 3}))
        .send(&app)
        .await;
    assert_error(&unknown, 404, "nobody");
    // A form, as most lichess clients send it.
    let made = post("/api/challenge/bob")
        .token(&alice)
        .raw(
            "application/x-www-form-urlencoded",
            "days=3&color=white&rated=false",
        )
        .send(&app)
        .await;
    let made = made.assert_status(200).clone();
    assert_eq!(made["direction"], "out");
    assert_eq!(made["status"], "created");
    assert_eq!(
        made["timeControl"],
        json!({"type": "correspondence", "daysPerTurn": 3})
    );
    let id = made["id"].as_str().unwrap();
    let shown = get(format!("/api/challenge/{id}/show"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(shown.assert_status(200)["direction"], "in");
    let listed = get("/api/challenge").token(&bob).send(&app).await;
    assert_eq!(listed.assert_status(200)["in"][0]["id"], json!(id));

    post(format!("/api/challenge/{id}/accept"))
        .token(&bob)
        .send(&app)
        .await;
    let games = get("/api/v1/games").token(&alice).send(&app).await;
    let game_id = games.assert_status(200)["games"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let move_path = |uci: &str| format!("/api/board/game/{game_id}/move/{uci}");
    let unreadable = post(format!("{}?offeringDraw=maybe", move_path("e2e4")))
        .token(&alice)
        .send(&app)
        .await;
    assert_error(&unreadable, 400, "`true` or `false`");
    let early = post(move_path("e7e5")).token(&bob).send(&app).await;
    assert_error(&early, 400, "not your turn");
    for (token, uci) in [
        (&alice, "e2e4"),
        (&bob, "e7e5"),
        (&alice, "g1f3"),
        (&bob, "b8c6"),
        (&alice, "f1c4"),
        (&bob, "f8c5"),
        (&alice, "e1g1"),
    ] {
        let answer = post(move_path(uci)).token(token).send(&app).await;
        assert_eq!(answer.assert_status(200), &json!({"ok": true}), "{uci}");
    }
    let illegal = post(move_path("e8g8")).token(&bob).send(&app).await;
    assert_error(&illegal, 400, "not a legal move");
    let read = get(format!("/api/v1/games/{game_id}"))
        .token(&alice)
        .send(&app)
        .await;
    let read = read.assert_status(200);
    assert_eq!(read["ply"], 7);
    assert_eq!(read["moves"][6]["san"], "O-O");

    // A token without `game:play` may follow, not move.
    let session = crate::support::sign_in(&app, "bob", crate::support::PASSWORD).await;
    let session = session["access_token"].as_str().unwrap();
    let reader = personal_token(&app, session, &["game:read"]).await;
    let refused = post(move_path("g8f6"))
        .token(reader["token"].as_str().unwrap())
        .send(&app)
        .await;
    assert_error(&refused, 403, "game:play");

    // Draws: `yes` offers, the opponent's `yes` accepts.
    let draw_path = format!("/api/board/game/{game_id}/draw/yes");
    post(&draw_path)
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    post(&draw_path)
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    let read = get(format!("/api/v1/games/{game_id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(read.assert_status(200)["termination"], "agreement");
    let late = post(format!("/api/board/game/{game_id}/resign"))
        .token(&bob)
        .send(&app)
        .await;
    assert_error(&late, 400, "over");
}

// The rule sets of docs/spec/rules.md §1.1 other than chess, and the Shuffle and
// Pre-chess starts, are kingpost's own: lichess clients know no such
// rules, and are refused with a pointer to kingpost's API.
async fn kingpost_variants_are_refused_on_the_lichess_surface(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "teleporting-kings",
        json!({"kind": "standard"}),
    )
    .await;
    let id = game["id"].as_str().unwrap();

    let moved = post(format!("/api/board/game/{id}/move/e2e4"))
        .token(&alice)
        .send(&app)
        .await;
    assert_error(&moved, 400, "/api/v1");
    let resigned = post(format!("/api/board/game/{id}/resign"))
        .token(&alice)
        .send(&app)
        .await;
    assert_error(&resigned, 400, "Teleporting Kings");
    let streamed = get(format!("/api/board/game/stream/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_error(&streamed, 400, "/api/v1");
    // Nothing was done: the game stands as it began.
    let read = get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        (&read.assert_status(200)["ply"], &read.body["status"]),
        (&json!(0), &json!("started"))
    );

    let variant = post("/api/challenge/bob")
        .token(&alice)
        .json(json!({"days": 3, "variant": "atomic"}))
        .send(&app)
        .await;
    assert_error(&variant, 400, "`atomic`");
    // A challenge made through kingpost's API to a variant cannot be
    // accepted through lichess's.
    let ours = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "switching", "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await;
    let challenge = ours.assert_status(201)["id"].as_str().unwrap().to_owned();
    let accepted = post(format!("/api/challenge/{challenge}/accept"))
        .token(&bob)
        .send(&app)
        .await;
    assert_error(&accepted, 400, "Switching");
    let still = get(format!("/api/v1/challenges/{challenge}"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(still.assert_status(200)["status"], "open");
    let listed = get("/api/challenge").token(&bob).send(&app).await;
    assert_eq!(listed.assert_status(200)["in"], json!([]));
}

// The game stream opens with `gameFull`, sends a `gameState` on each move
// and offer, whoever made it and through whichever API, and closes after
// the last, when the game ends.
async fn a_game_stream_follows_its_game_to_the_end(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let id = game["id"].as_str().unwrap();
    let game = play_all(&app, &game, &alice, &bob, &["e4"]).await;

    let stream =
        actix_web::test::call_service(&app, open(&format!("/api/board/game/stream/{id}"), &bob))
            .await;
    assert_eq!(stream.status(), 200);
    assert_eq!(
        stream.headers().get("content-type").unwrap(),
        "application/x-ndjson"
    );
    let mut body = stream.into_body();
    let full = &next_lines(&mut body, 1).await[0];
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["initialFen"], "startpos");
    assert_eq!(full["daysPerTurn"], 3);
    assert_eq!(full["speed"], "correspondence");
    assert_eq!(
        (&full["white"]["id"], &full["black"]["id"]),
        (&json!("alice"), &json!("bob"))
    );
    assert_eq!(full["state"]["moves"], "e2e4");
    assert_eq!(full["state"]["status"], "started");

    // A move through kingpost's own API, then lichess's draw offer.
    play_all(&app, &game, &alice, &bob, &["e5"]).await;
    let moved = &next_lines(&mut body, 1).await[0];
    assert_eq!(
        (&moved["type"], &moved["moves"]),
        (&json!("gameState"), &json!("e2e4 e7e5"))
    );
    post(format!("/api/board/game/{id}/draw/yes"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    let offered = &next_lines(&mut body, 1).await[0];
    assert_eq!(offered["wdraw"], true);
    post(format!("/api/board/game/{id}/resign"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    let last = &next_lines(&mut body, 1).await[0];
    assert_eq!(
        (&last["status"], &last["winner"]),
        (&json!("resign"), &json!("white"))
    );
    until_the_end(&mut body).await;
}

// The event stream opens with the open challenges and the games under way
// (not those of kingpost's own variants), then tells of challenges
// received and declined and of games started and finished, once each.
async fn the_event_stream_tells_of_challenges_and_games(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "captive-kings",
        json!({"kind": "standard"}),
    )
    .await;
    post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "start": {"kind": "chess960"}, "days_per_move": 5, "opponent": "bob"}))
        .send(&app)
        .await
        .assert_status(201);

    let mut body = actix_web::test::call_service(&app, open("/api/stream/event", &bob))
        .await
        .into_body();
    let opening = next_lines(&mut body, 2).await;
    assert_eq!(opening[0]["type"], "challenge");
    assert_eq!(opening[0]["challenge"]["variant"]["key"], "chess960");
    assert_eq!(opening[0]["challenge"]["direction"], "in");
    assert_eq!(opening[1]["type"], "gameStart");
    assert_eq!(opening[1]["game"]["gameId"], game["id"]);
    assert_eq!(opening[1]["game"]["color"], "black");
    assert_eq!(opening[1]["game"]["isMyTurn"], false);
    assert_eq!(opening[1]["game"]["opponent"]["username"], "alice");

    // A challenge received, then a game started by accepting it.
    let made = post("/api/challenge/bob")
        .token(&alice)
        .json(json!({"days": 7, "color": "black"}))
        .send(&app)
        .await;
    let made = made.assert_status(200)["id"].clone();
    let received = &next_lines(&mut body, 1).await[0];
    assert_eq!(
        (&received["type"], &received["challenge"]["id"]),
        (&json!("challenge"), &made)
    );
    post(format!("/api/challenge/{}/accept", made.as_str().unwrap()))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    let started = &next_lines(&mut body, 1).await[0];
    assert_eq!(started["type"], "gameStart");
    assert_eq!(
        (&started["game"]["color"], &started["game"]["isMyTurn"]),
        (&json!("white"), &json!(true))
    );

    // The first game finished; nothing in between was told twice.
    post(format!(
        "/api/board/game/{}/resign",
        game["id"].as_str().unwrap()
    ))
    .token(&alice)
    .send(&app)
    .await
    .assert_status(200);
    let finished = &next_lines(&mut body, 1).await[0];
    assert_eq!(finished["type"], "gameFinish");
    assert_eq!(finished["game"]["gameId"], game["id"]);
    assert_eq!(
        (
            &finished["game"]["status"]["name"],
            &finished["game"]["winner"]
        ),
        (&json!("resign"), &json!("black"))
    );

    // Alice's challenge declined: she hears of it.
    let mut hers = actix_web::test::call_service(&app, open("/api/stream/event", &alice))
        .await
        .into_body();
    let opening = next_lines(&mut hers, 2).await;
    assert_eq!(opening[0]["type"], "challenge");
    assert_eq!(opening[0]["challenge"]["direction"], "out");
    assert_eq!(opening[1]["type"], "gameStart");
    let again = post("/api/challenge/bob")
        .token(&alice)
        .json(json!({"days": 1}))
        .send(&app)
        .await;
    let again = again.assert_status(200)["id"].as_str().unwrap().to_owned();
    post(format!("/api/challenge/{again}/decline"))
        .token(&bob)
        .json(json!({"reason": "later"}))
        .send(&app)
        .await
        .assert_status(200);
    let declined = &next_lines(&mut hers, 1).await[0];
    assert_eq!(declined["type"], "challengeDeclined");
    assert_eq!(declined["challenge"]["id"], json!(again));
    assert_eq!(declined["challenge"]["declineReasonKey"], "generic");
}

// A lichess stream, as kingpost's own, lasts as long as its token: revoked,
// the event stream and the game stream end within seconds.
async fn lichess_streams_end_with_their_token(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let personal = personal_token(&app, &bob, &["game:read"]).await;
    let token = personal["token"].as_str().unwrap();
    let mut events = actix_web::test::call_service(&app, open("/api/stream/event", token))
        .await
        .into_body();
    next_lines(&mut events, 1).await;
    let path = format!("/api/board/game/stream/{}", game["id"].as_str().unwrap());
    let mut game_stream = actix_web::test::call_service(&app, open(&path, token))
        .await
        .into_body();
    next_lines(&mut game_stream, 1).await;
    delete(format!(
        "/api/v1/tokens/{}",
        personal["id"].as_str().unwrap()
    ))
    .token(&bob)
    .send(&app)
    .await
    .assert_status(204);
    until_the_end(&mut events).await;
    // The game stream looks at its token when it wakes: a move wakes it.
    play_all(&app, &game, &alice, &bob, &["d4"]).await;
    until_the_end(&mut game_stream).await;
    let gone = get("/api/account").token(token).send(&app).await;
    assert_error(&gone, 401, "revoked");
}

// A body larger than kingpost takes is refused in lichess's shape, JSON
// with an `error`, as every other refusal of the surface is.
async fn a_body_too_large_is_refused_as_lichess_refuses(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    sign_up(&app, "bob").await;
    let large = format!("days=3&color=white&message={}", "x".repeat(300 * 1024));
    for path in ["/api/challenge/bob", "/api/challenge/nothing/decline"] {
        let answer = post(path)
            .token(&alice)
            .raw("application/x-www-form-urlencoded", large.clone())
            .send(&app)
            .await;
        assert_eq!(answer.status.as_u16(), 413, "{path}: {}", answer.body);
        assert!(answer.body["error"].is_string(), "{path}: {}", answer.body);
    }
}
