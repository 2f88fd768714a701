//! lichess's Bot API: BOT accounts, the upgrade, the surfaces each kind of
//! account uses, and a BOT's games (casual, never aborted under a player),
//! streamed with their chat. (README, "Clients written for lichess".)

use kingpost_api::clock::{DAY, rfc3339};
use serde_json::{Value, json};

use crate::{
    lichess::{assert_error, next_lines, open},
    on_both_databases,
    support::{
        Db, START_TIME, Served, TestApp, clock, get, personal_token, play_all, post, sign_up,
        sign_up_for_a_year, start_standard_game,
    },
};

on_both_databases!(
    an_account_that_never_played_becomes_a_bot_for_good,
    bots_and_players_each_keep_to_their_surface,
    games_with_a_bot_are_casual_and_never_aborted_under_a_player,
    a_bot_game_streams_its_chat_both_ways,
    a_bot_tests_its_token_and_finds_its_games,
    a_user_is_online_while_a_stream_of_theirs_is_open,
    a_bots_draws_claims_takebacks_and_resignation
);

/// A BOT named `name`: signed up, upgraded with a `bot:play` token; its
/// session (for kingpost's own API) and that token.
async fn bot<B: actix_web::body::MessageBody>(
    app: &impl Served<B>,
    name: &str,
) -> (String, String) {
    let session = sign_up(app, name).await;
    let token = personal_token(app, &session, &["bot:play", "challenge:write"]).await["token"]
        .as_str()
        .unwrap()
        .to_owned();
    post("/api/bot/account/upgrade")
        .token(&token)
        .send(app)
        .await
        .assert_status(200);
    (session, token)
}

// The upgrade needs `bot:play`, is allowed only to an account that has
// never played, and is for good: the account says `BOT` where it is shown.
async fn an_account_that_never_played_becomes_a_bot_for_good(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up(&app, "alice").await;
    let reader = personal_token(&app, &alice, &["game:read"]).await;
    let upgrade = async |token: &str| {
        post("/api/bot/account/upgrade")
            .token(token)
            .send(&app)
            .await
    };
    assert_error(
        &upgrade(reader["token"].as_str().unwrap()).await,
        403,
        "bot:play",
    );
    let account = get("/api/account").token(&alice).send(&app).await;
    assert_eq!(account.assert_status(200).get("title"), None);

    let answer = upgrade(&alice).await;
    assert_eq!(answer.assert_status(200), &json!({"ok": true}));
    let account = get("/api/account").token(&alice).send(&app).await;
    assert_eq!(account.assert_status(200)["title"], "BOT");
    let profile = get("/api/v1/users/alice").send(&app).await;
    assert_eq!(profile.assert_status(200)["bot"], true);
    // Once a BOT, always one: a second upgrade changes nothing.
    upgrade(&alice).await.assert_status(200);

    // An account that has played, even one game, stays a player.
    let bob = sign_up(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let game = start_standard_game(&app, &bob, &carol, "carol").await;
    post(format!(
        "/api/v1/games/{}/abort",
        game["id"].as_str().unwrap()
    ))
    .token(&bob)
    .send(&app)
    .await
    .assert_status(200);
    assert_error(&upgrade(&bob).await, 400, "never played");
    let profile = get("/api/v1/users/bob").send(&app).await;
    assert_eq!(profile.assert_status(200)["bot"], false);
}

// As on lichess: a BOT plays through the Bot API (and kingpost's own), never
// the Board API; a player never through the Bot API.
async fn bots_and_players_each_keep_to_their_surface(db: Db) {
    let app = TestApp::on(&db).start().await;
    let (alice_session, alice) = bot(&app, "alice").await;
    // A session: every scope, `bot:play` too, and still no BOT.
    let bob = sign_up(&app, "bob").await;
    // Bob (White) challenges the BOT, which accepts on lichess's path.
    let challenge = post("/api/challenge/alice")
        .token(&bob)
        .json(json!({"days": 3, "color": "white", "rated": false}))
        .send(&app)
        .await;
    let id = challenge.assert_status(200)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(format!("/api/challenge/{id}/accept"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    let game = get("/api/account/playing").token(&bob).send(&app).await;
    let game = game.assert_status(200)["nowPlaying"][0]["gameId"]
        .as_str()
        .unwrap()
        .to_owned();

    let on = async |path: String, token: &str| post(path).token(token).send(&app).await;
    assert_error(
        &on(format!("/api/bot/game/{game}/move/e2e4"), &bob).await,
        400,
        "the Bot API is for BOT accounts",
    );
    on(format!("/api/board/game/{game}/move/e2e4"), &bob)
        .await
        .assert_status(200);
    // The BOT's session holds every scope: the kind of account refuses it.
    assert_error(
        &on(format!("/api/board/game/{game}/move/e7e5"), &alice_session).await,
        400,
        "not the Board API",
    );
    on(format!("/api/bot/game/{game}/move/e7e5"), &alice)
        .await
        .assert_status(200);
    let stream = actix_web::test::call_service(
        &app,
        open(&format!("/api/board/game/stream/{game}"), &alice_session),
    )
    .await;
    assert_eq!(stream.status(), 400, "a BOT's stream is the Bot API's");
    let view = get(format!("/api/v1/games/{game}"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(view.assert_status(200)["ply"], 2);
    assert_eq!(view.body["black"]["bot"], true);
    assert_eq!(view.body["white"]["bot"], false);
    // Marked wherever players are listed: the games, the challenges, a
    // tournament's players and standings.
    let list = get("/api/v1/games").token(&bob).send(&app).await;
    let listed = &list.assert_status(200)["games"][0];
    assert_eq!(
        (&listed["white"]["bot"], &listed["black"]["bot"]),
        (&json!(false), &json!(true))
    );
    post("/api/v1/challenges")
        .token(&alice_session)
        .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await
        .assert_status(201);
    let challenges = get("/api/v1/challenges").token(&bob).send(&app).await;
    assert_eq!(
        challenges.assert_status(200)["incoming"][0]["challenger"]["bot"],
        true
    );
    let tournament = post("/api/v1/tournaments")
        .token(&bob)
        .json(json!({"name": "Engines welcome", "rules": "standard", "days_per_move": 3, "capacity": 4,
                     "signup_deadline": rfc3339(START_TIME + 7 * DAY)}))
        .send(&app)
        .await;
    let id = tournament.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for token in [&bob, &alice_session] {
        post(format!("/api/v1/tournaments/{id}/join"))
            .token(token)
            .send(&app)
            .await
            .assert_status(200);
    }
    let tournament = get(format!("/api/v1/tournaments/{id}")).send(&app).await;
    // Both joined at the clock's one instant: their order is the ids'.
    let mut bots: Vec<(&str, &Value)> = tournament.assert_status(200)["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["username"].as_str().unwrap(), &p["bot"]))
        .collect();
    bots.sort_by_key(|(name, _)| *name);
    assert_eq!(bots, [("alice", &json!(true)), ("bob", &json!(false))]);
    assert_eq!(tournament.body["organiser"]["bot"], false);
}

// Games with a BOT are casual (README: an engine's results would move the
// players' pools); a BOT may not abort a player's game, who has days for a
// move, while the player may abort as in any game.
async fn games_with_a_bot_are_casual_and_never_aborted_under_a_player(db: Db) {
    let app = TestApp::on(&db).start().await;
    let (alice_session, alice) = bot(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let rated = post("/api/v1/challenges")
        .token(&bob)
        .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "rated": true, "opponent": "alice"}))
        .send(&app)
        .await;
    rated.assert_problem(409, "rated_with_bot");
    let seek = post("/api/v1/challenges")
        .token(&alice_session)
        .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "rated": true}))
        .send(&app)
        .await;
    seek.assert_problem(409, "rated_with_bot");
    // A rated seek of a player is not for a BOT to take.
    let seek = post("/api/v1/challenges")
        .token(&bob)
        .json(json!({"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "rated": true}))
        .send(&app)
        .await;
    let seek = seek.assert_status(201)["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/challenges/{seek}/accept"))
        .token(&alice_session)
        .send(&app)
        .await
        .assert_problem(409, "rated_with_bot");

    // The BOT plays White and moves; Bob has not: still the BOT may not abort.
    let game = start_standard_game(&app, &alice_session, &bob, "bob").await;
    let id = game["id"].as_str().unwrap().to_owned();
    assert_eq!(game["actions"]["white"]["abort"], false);
    assert_eq!(game["actions"]["black"]["abort"], true);
    assert_error(
        &post(format!("/api/bot/game/{id}/abort"))
            .token(&alice)
            .send(&app)
            .await,
        400,
        "a BOT cannot abort",
    );
    post(format!("/api/bot/game/{id}/move/e2e4"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    assert_error(
        &post(format!("/api/bot/game/{id}/abort"))
            .token(&alice)
            .send(&app)
            .await,
        400,
        "a BOT cannot abort",
    );
    post(format!("/api/v1/games/{id}/abort"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
}

// The Bot API's game stream opens with `gameFull` (the BOT titled), then
// carries each move and each message of the players' room as a `chatLine`;
// a BOT writes to that room, which is the game's messages, and reads it.
async fn a_bot_game_streams_its_chat_both_ways(db: Db) {
    let app = TestApp::on(&db).start().await;
    let (alice_session, alice) = bot(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &bob, &alice_session, "alice").await;
    let id = game["id"].as_str().unwrap().to_owned();

    let stream =
        actix_web::test::call_service(&app, open(&format!("/api/bot/game/stream/{id}"), &alice))
            .await;
    assert_eq!(stream.status(), 200);
    let mut body = stream.into_body();
    let full = &next_lines(&mut body, 1).await[0];
    assert_eq!(full["type"], "gameFull");
    assert_eq!(
        (&full["white"]["title"], &full["black"]["title"]),
        (&Value::Null, &json!("BOT"))
    );
    for field in ["wtime", "btime", "winc", "binc"] {
        assert!(
            full["state"][field].is_i64(),
            "{field} is an integer of milliseconds"
        );
    }

    post(format!("/api/v1/games/{id}/messages"))
        .token(&bob)
        .json(json!({"text": "Good luck, engine"}))
        .send(&app)
        .await
        .assert_status(201);
    let said = &next_lines(&mut body, 1).await[0];
    assert_eq!(
        said,
        &json!({"type": "chatLine", "room": "player", "username": "bob", "text": "Good luck, engine"})
    );
    play_all(&app, &game, &bob, &alice_session, &["e4"]).await;
    assert_eq!(next_lines(&mut body, 1).await[0]["moves"], "e2e4");

    let chat = |room: &str| {
        post(format!("/api/bot/game/{id}/chat")).token(&alice).raw(
            "application/x-www-form-urlencoded",
            format!("room={room}&text=Thank+you%21"),
        )
    };
    chat("player").send(&app).await.assert_status(200);
    let own = &next_lines(&mut body, 1).await[0];
    assert_eq!(
        (&own["username"], &own["text"]),
        (&json!("alice"), &json!("Thank you!"))
    );
    // No spectators' chat here: accepted, not kept; no room else.
    chat("spectator").send(&app).await.assert_status(200);
    assert_error(&chat("lobby").send(&app).await, 400, "no chat room");

    let messages = get(format!("/api/v1/games/{id}/messages"))
        .token(&bob)
        .send(&app)
        .await;
    let texts: Vec<&Value> = messages.assert_status(200)["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["text"])
        .collect();
    assert_eq!(texts, [&json!("Good luck, engine"), &json!("Thank you!")]);
    let read = get(format!("/api/bot/game/{id}/chat"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        read.assert_status(200),
        &json!([{"text": "Good luck, engine", "user": "bob"}, {"text": "Thank you!", "user": "alice"}])
    );
}

// lichess-bot's first calls: what its token stands for (`bot:play` among
// the scopes, or null for a token that is none), then the games it plays.
async fn a_bot_tests_its_token_and_finds_its_games(db: Db) {
    let app = TestApp::on(&db).start().await;
    let (alice_session, alice) = bot(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let tested = post("/api/token/test")
        .raw("text/plain", format!("{alice},not-a-token"))
        .send(&app)
        .await;
    let tested = tested.assert_status(200);
    assert_eq!(tested[&alice]["userId"], "alice");
    assert_eq!(tested[&alice]["scopes"], "bot:play,challenge:write");
    assert!(tested[&alice]["expires"].is_i64());
    assert_eq!(tested["not-a-token"], Value::Null);

    let first = start_standard_game(&app, &bob, &alice_session, "alice").await;
    let second = start_standard_game(&app, &alice_session, &bob, "bob").await;
    play_all(&app, &first, &bob, &alice_session, &["e4"]).await;
    let playing = get("/api/account/playing").token(&alice).send(&app).await;
    assert_eq!(playing.assert_status(200)["nbMyTurn"], 2);
    let now = playing.body["nowPlaying"].as_array().unwrap().clone();
    assert_eq!(now.len(), 2);
    // Both await the BOT's move; each says so, with its colour.
    let mine: Vec<(&Value, &Value)> = now.iter().map(|g| (&g["gameId"], &g["isMyTurn"])).collect();
    assert!(mine.contains(&(&first["id"], &json!(true))));
    assert!(mine.contains(&(&second["id"], &json!(true))));
    let pgn = get(format!("/game/export/{}", first["id"].as_str().unwrap()))
        .send(&app)
        .await;
    assert_eq!(pgn.status.as_u16(), 200);
    let user = get("/api/user/alice").send(&app).await;
    assert_eq!(user.assert_status(200)["title"], "BOT");
}

// lichess's status call (lichess-bot asks it of opponents): a user is
// online while one of their streams is open, and for a while after
// (kingpost's presence::ONLINE_FOR, 90 s); BOTs online are listed apart.
async fn a_user_is_online_while_a_stream_of_theirs_is_open(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let (_, alice) = bot(&app, "alice").await;
    let _bob = sign_up(&app, "bob").await;
    let status = || get("/api/users/status?ids=Alice,bob,nobody,alice").send(&app);
    let before = status().await;
    assert_eq!(
        before.assert_status(200),
        &json!([{"id": "alice", "name": "alice", "title": "BOT"}, {"id": "bob", "name": "bob"}])
    );

    let stream = actix_web::test::call_service(&app, open("/api/stream/event", &alice)).await;
    assert_eq!(
        stream.status(),
        200,
        "a BOT's bot:play token follows its events"
    );
    let during = status().await;
    assert_eq!(during.assert_status(200)[0]["online"], true);
    assert_eq!(during.body[1].get("online"), None);
    // NDJSON: its one line, read as JSON.
    let online = get("/api/bot/online").send(&app).await;
    let line = online.assert_status(200);
    assert_eq!(
        (&line["id"], &line["title"]),
        (&json!("alice"), &json!("BOT"))
    );

    drop(stream);
    clock.advance(kingpost_api::presence::ONLINE_FOR + 1);
    assert_eq!(status().await.assert_status(200)[0].get("online"), None);
    let online = get("/api/bot/online").send(&app).await;
    assert_eq!(online.assert_status(200), &Value::Null, "no BOT online");
}

// The Bot API's other actions, each the Board API's: a draw offered and
// declined, a claim refused while there is none to claim, no takebacks
// (docs/spec/rules.md §2.3: claims are the side to move's), a resignation.
async fn a_bots_draws_claims_takebacks_and_resignation(db: Db) {
    let app = TestApp::on(&db).start().await;
    let (alice_session, alice) = bot(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let game = start_standard_game(&app, &alice_session, &bob, "bob").await;
    let id = game["id"].as_str().unwrap().to_owned();
    let bot_call = async |action: &str| {
        post(format!("/api/bot/game/{id}/{action}"))
            .token(&alice)
            .send(&app)
            .await
    };
    bot_call("move/e2e4?offeringDraw=true")
        .await
        .assert_status(200);
    let view = get(format!("/api/v1/games/{id}"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(view.assert_status(200)["draw_offer"], "white");
    post(format!("/api/board/game/{id}/draw/no"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    post(format!("/api/board/game/{id}/move/e7e5"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    assert_error(&bot_call("claim-draw").await, 400, "no draw to claim");
    assert_error(&bot_call("takeback/yes").await, 400, "no takebacks");
    assert_error(&bot_call("draw/maybe").await, 400, "`yes` or `no`");
    bot_call("draw/yes").await.assert_status(200);
    bot_call("resign").await.assert_status(200);
    let view = get(format!("/api/v1/games/{id}"))
        .token(&bob)
        .send(&app)
        .await;
    let view = view.assert_status(200);
    assert_eq!(
        (&view["result"], &view["termination"]),
        (&json!("0-1"), &json!("resignation"))
    );
}
