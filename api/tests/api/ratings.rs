//! Rated play: a finished rated game moves both players' Glicko-2 ratings
//! once, in its own transaction, even when two instances finish it at once
//! or two of a player's games finish together; casual and aborted games
//! move nothing; profiles, histories and leaderboards show the result.

use actix_web::body::MessageBody;
use futures_util::future::{join, join_all};
use serde_json::{Value, json};

use kingpost_api::{
    clock::{DAY, SECOND},
    domain::ratings::{LEADERBOARD_ACTIVITY, PERIOD, PROVISIONAL},
};

use crate::{
    events::read_events,
    on_both_databases,
    support::{Db, Served, TestApp, clock, get, play_all, post, sign_up, sign_up_for_a_year},
};

on_both_databases!(
    a_rated_game_moves_both_ratings_once,
    casual_aborted_and_fen_games_move_nothing,
    two_instances_finishing_one_game_rate_it_once,
    games_of_one_player_finishing_together_all_count,
    leaderboard_lists_established_ratings_only,
    seeks_are_listed_to_and_accepted_by_those_in_range,
    a_rated_game_ended_before_each_side_moved_is_unrated,
    a_profile_notes_the_last_activity_to_the_minute
);

/// `white` challenges `black` (as White) to a game, rated or not, and
/// `black` accepts: the game.
async fn game_between<B: MessageBody>(
    app: &impl Served<B>,
    white: &str,
    black: &str,
    black_name: &str,
    rated: bool,
) -> Value {
    let challenge = post("/api/v1/challenges")
        .token(white)
        .json(
            json!({"rules": "standard", "days_per_move": 3, "color": "white",
                     "opponent": black_name, "rated": rated}),
        )
        .send(app)
        .await;
    assert_eq!(challenge.assert_status(201)["rated"], rated);
    let id = challenge.body["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/challenges/{id}/accept"))
        .token(black)
        .send(app)
        .await
        .assert_status(201)
        .clone()
}

/// Fool's mate: Black wins.
const FOOLS_MATE: [&str; 4] = ["f3", "e5", "g4", "Qh4#"];

/// A rated game between `white` and `black` (each a token and a name)
/// that Black wins by fool's mate.
async fn black_mates<B: MessageBody>(
    app: &impl Served<B>,
    white: (&str, &str),
    black: (&str, &str),
) {
    let game = game_between(app, white.0, black.0, black.1, true).await;
    let finished = play_all(app, &game, white.0, black.0, &FOOLS_MATE).await;
    assert_eq!(finished["result"], "0-1");
}

async fn profile<B: MessageBody>(app: &impl Served<B>, username: &str) -> Value {
    read(app, format!("/api/v1/users/{username}")).await
}

/// A profile's `last_active_at` is when the player last acted in a game,
/// to the minute (its documentation in the OpenAPI document): a move
/// within a minute of the time noted leaves it, the first one after moves it.
async fn a_profile_notes_the_last_activity_to_the_minute(db: Db) {
    let clock = clock();
    let (app, [alice, bob]) = TestApp::on(&db)
        .clock(clock.clone())
        .with_users(["alice", "bob"])
        .await;
    let game = game_between(&app, &alice, &bob, "bob", false).await;
    let seen = |profile: Value| profile["last_active_at"].clone();
    assert_eq!(seen(profile(&app, "alice").await), Value::Null);

    play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let first = seen(profile(&app, "alice").await);
    assert!(first.is_string(), "{first}");

    clock.advance(25 * SECOND);
    play_all(&app, &game, &alice, &bob, &["e5"]).await;
    clock.advance(25 * SECOND);
    play_all(&app, &game, &alice, &bob, &["Nf3"]).await;
    assert_eq!(seen(profile(&app, "alice").await), first);

    clock.advance(25 * SECOND);
    play_all(&app, &game, &alice, &bob, &["Nc6"]).await;
    clock.advance(25 * SECOND);
    play_all(&app, &game, &alice, &bob, &["Bc4"]).await;
    let later = seen(profile(&app, "alice").await);
    assert!(later.is_string() && later != first, "{first} then {later}");
}

/// A public read that answers 200: its body.
async fn read<B: MessageBody>(app: &impl Served<B>, path: impl Into<String>) -> Value {
    get(path).send(app).await.assert_status(200).clone()
}

/// The one rating a profile shows, or `Null`.
fn only_rating(profile: &Value) -> Value {
    let ratings = profile["ratings"].as_array().unwrap();
    assert!(ratings.len() <= 1, "{profile:#}");
    ratings.first().cloned().unwrap_or(Value::Null)
}

async fn a_rated_game_moves_both_ratings_once(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = game_between(&app, &alice, &bob, "bob", true).await;
    assert_eq!(game["rated"], true);
    // New players start at 1500, deviation 350: provisional.
    for side in ["white", "black"] {
        assert_eq!(game["ratings"][side]["rating"], 1500, "{game:#}");
        assert_eq!(game["ratings"][side]["deviation"], 350);
        assert_eq!(game["ratings"][side]["provisional"], true);
        assert_eq!(game["ratings"][side]["change"], Value::Null);
    }
    assert_eq!(game["ratings"]["start"], "standard");

    let finished = play_all(&app, &game, &alice, &bob, &FOOLS_MATE).await;
    assert_eq!(finished["result"], "0-1");
    let (white_change, black_change) = (
        finished["ratings"]["white"]["change"].as_i64().unwrap(),
        finished["ratings"]["black"]["change"].as_i64().unwrap(),
    );
    assert!(white_change < 0 && black_change > 0, "{finished:#}");
    // Equal ratings and deviations: the steps are equal and opposite.
    assert_eq!(white_change, -black_change);
    // The start ratings stay as the game began.
    assert_eq!(finished["ratings"]["white"]["rating"], 1500);

    let alice_profile = profile(&app, "alice").await;
    let bob_profile = profile(&app, "bob").await;
    let (a, b) = (only_rating(&alice_profile), only_rating(&bob_profile));
    assert_eq!(a["games"], 1);
    assert_eq!(b["games"], 1);
    assert_eq!(a["rating"], 1500 + white_change);
    assert_eq!(b["rating"], 1500 + black_change);
    assert!(a["deviation"].as_i64().unwrap() < 350);
    assert_eq!(a["provisional"], true);
    assert_eq!(
        alice_profile["records"],
        json!([{"rules": "standard", "wins": 0, "draws": 0, "losses": 1}])
    );
    assert_eq!(bob_profile["records"][0]["wins"], 1);
    assert_eq!(alice_profile["games_under_way"], 0);
    assert!(alice_profile["last_active_at"].is_string());

    let history = read(&app, "/api/v1/users/bob/rating-history?rules=standard").await;
    let points = history["points"].as_array().unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0]["game_id"], game["id"]);
    assert_eq!(points[0]["rating"], b["rating"]);
    assert_eq!(points[0]["change"], black_change);

    // PGN: lichess's rating tags.
    let pgn = get(format!(
        "/api/v1/games/{}/pgn",
        game["id"].as_str().unwrap()
    ))
    .token(&alice)
    .send(&app)
    .await;
    let text = pgn.body.as_str().unwrap().to_owned();
    assert!(
        text.contains("[Event \"kingpost rated correspondence game\"]"),
        "{text}"
    );
    assert!(text.contains("[WhiteElo \"1500\"]"), "{text}");
    assert!(text.contains("[BlackElo \"1500\"]"), "{text}");
    assert!(
        text.contains(&format!("[WhiteRatingDiff \"{white_change}\"]")),
        "{text}"
    );
    assert!(
        text.contains(&format!("[BlackRatingDiff \"+{black_change}\"]")),
        "{text}"
    );

    // Each player is told of the change.
    let request = actix_web::test::TestRequest::get()
        .uri("/api/v1/stream/events?since=0")
        .insert_header(("Authorization", format!("Bearer {bob}")))
        .to_request();
    let response = actix_web::test::call_service(&app, request).await;
    let mut body = response.into_body();
    let mut seen = Vec::new();
    let change = loop {
        if let Some(event) = seen.iter().find(|e: &&Value| e["type"] == "rating_changed") {
            break event.clone();
        }
        seen.extend(read_events(&mut body, seen.len() + 1).await);
    };
    assert_eq!(change["game_id"], game["id"]);
    assert_eq!(change["data"]["change"], black_change);
    assert_eq!(change["data"]["rating"], b["rating"]);
}

async fn casual_aborted_and_fen_games_move_nothing(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let casual = game_between(&app, &alice, &bob, "bob", false).await;
    assert_eq!(casual["rated"], false);
    assert_eq!(casual["ratings"], Value::Null);
    let finished = play_all(&app, &casual, &alice, &bob, &FOOLS_MATE).await;
    assert_eq!(finished["ratings"], Value::Null);

    // An aborted rated game is unrated.
    let rated = game_between(&app, &alice, &bob, "bob", true).await;
    post(format!(
        "/api/v1/games/{}/abort",
        rated["id"].as_str().unwrap()
    ))
    .token(&alice)
    .send(&app)
    .await
    .assert_status(200);
    for name in ["alice", "bob"] {
        let p = profile(&app, name).await;
        assert_eq!(p["ratings"], json!([]), "{p:#}");
    }
    // The casual game still counts in the record.
    assert_eq!(profile(&app, "bob").await["records"][0]["wins"], 1);

    // A thematic position proves nothing of a player's whole game.
    post("/api/v1/challenges")
        .token(&alice)
        .json(
            json!({"rules": "standard", "days_per_move": 3, "opponent": "bob", "rated": true,
                     "start": {"kind": "fen", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}}),
        )
        .send(&app)
        .await
        .assert_problem(422, "unrated_start");
}

async fn two_instances_finishing_one_game_rate_it_once(db: Db) {
    let clock = clock();
    let one = TestApp::on(&db).clock(clock.clone()).start().await;
    let two = TestApp::on(&db).clock(clock).start().await;
    let alice = sign_up(&one, "alice").await;
    let bob = sign_up(&two, "bob").await;
    for round in 0..3 {
        let game = game_between(&one, &alice, &bob, "bob", true).await;
        let id = game["id"].as_str().unwrap();
        // Each side moves (a game ended before that is not rated), then
        // both resign at once, each through its own instance: one wins.
        play_all(&one, &game, &alice, &bob, &["e4", "e5"]).await;
        let (a, b) = join(
            post(format!("/api/v1/games/{id}/resign"))
                .token(&alice)
                .send(&one),
            post(format!("/api/v1/games/{id}/resign"))
                .token(&bob)
                .send(&two),
        )
        .await;
        let mut statuses = [a.status.as_u16(), b.status.as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "{a:?} {b:?}");
        let games = round + 1;
        for name in ["alice", "bob"] {
            let rating = only_rating(&profile(&one, name).await);
            assert_eq!(rating["games"], games, "{name}: {rating:#}");
            let history = read(
                &two,
                format!("/api/v1/users/{name}/rating-history?rules=standard"),
            )
            .await;
            assert_eq!(history["points"].as_array().unwrap().len(), games as usize);
        }
    }
}

// Six of alice's games finish at the same moment on two instances: each
// reads her rating as the one before left it (the row lock orders them),
// so every change adds up instead of one overwriting another.
async fn games_of_one_player_finishing_together_all_count(db: Db) {
    const GAMES: usize = 6;
    let clock = clock();
    let instances = [
        TestApp::on(&db).clock(clock.clone()).start().await,
        TestApp::on(&db).clock(clock).start().await,
    ];
    let alice = sign_up(&instances[0], "alice").await;
    let mut resignations = Vec::new();
    for n in 0..GAMES {
        let app = &instances[n % 2];
        let name = format!("opponent{n}");
        let token = sign_up(app, &name).await;
        let game = game_between(app, &alice, &token, &name, true).await;
        // Each side moves: a game ended before that is not rated.
        play_all(app, &game, &alice, &token, &["e4", "e5"]).await;
        resignations.push((app, token, game["id"].as_str().unwrap().to_owned()));
    }
    let answers = join_all(resignations.iter().map(|(app, token, id)| {
        post(format!("/api/v1/games/{id}/resign"))
            .token(token)
            .send(*app)
    }))
    .await;
    for answer in &answers {
        answer.assert_status(200);
    }
    let alice_rating = only_rating(&profile(&instances[0], "alice").await);
    assert_eq!(alice_rating["games"], GAMES, "{alice_rating:#}");
    let history = read(
        &instances[1],
        "/api/v1/users/alice/rating-history?rules=standard",
    )
    .await;
    let points = history["points"].as_array().unwrap();
    assert_eq!(points.len(), GAMES);
    // Every change is in the rating (rounded, each within half a point).
    let changes: i64 = points.iter().map(|p| p["change"].as_i64().unwrap()).sum();
    assert!(points.iter().all(|p| p["change"].as_i64().unwrap() > 0));
    let rating = alice_rating["rating"].as_i64().unwrap();
    assert!(
        (rating - (1500 + changes)).abs() <= 3,
        "{rating} {points:#?}"
    );
}

async fn leaderboard_lists_established_ratings_only(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    // Alice and Bob take turns to win (Black mates) until both deviations
    // fall below the provisional threshold; then Alice wins once more, which
    // puts her ahead whoever led.
    let mut games = 0;
    loop {
        if games % 2 == 0 {
            black_mates(&app, (&bob, "bob"), (&alice, "alice")).await;
        } else {
            black_mates(&app, (&alice, "alice"), (&bob, "bob")).await;
        }
        games += 1;
        let a = only_rating(&profile(&app, "alice").await);
        let b = only_rating(&profile(&app, "bob").await);
        if a["provisional"] == false && b["provisional"] == false {
            assert!(a["deviation"].as_f64().unwrap() < PROVISIONAL);
            break;
        }
        assert!(
            games < 60,
            "still provisional after {games} games: {a:#} {b:#}"
        );
    }
    black_mates(&app, (&bob, "bob"), (&alice, "alice")).await;
    // Carol's one game leaves her provisional: not listed.
    black_mates(&app, (&carol, "carol"), (&bob, "bob")).await;
    let board = read(&app, "/api/v1/leaderboard?rules=standard").await;
    let names: Vec<&str> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice", "bob"], "{board:#}");
    assert_eq!(board["entries"][0]["rank"], 1);
    assert_eq!(board["next_cursor"], Value::Null);

    // One at a time, through the cursor.
    let first = read(&app, "/api/v1/leaderboard?rules=standard&limit=1").await;
    assert_eq!(first["entries"][0]["username"], "alice");
    let cursor = first["next_cursor"].as_str().unwrap();
    let second = read(
        &app,
        format!("/api/v1/leaderboard?rules=standard&limit=1&cursor={cursor}"),
    )
    .await;
    assert_eq!(second["entries"][0]["username"], "bob");
    assert_eq!(second["entries"][0]["rank"], 2);
    assert_eq!(second["next_cursor"], Value::Null);

    // Other pools are empty; unknown ones are refused.
    let chess960 = read(&app, "/api/v1/leaderboard?rules=standard&start=chess960").await;
    assert_eq!(chess960["entries"], json!([]));
    get("/api/v1/leaderboard?rules=standard&start=fen")
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
    get("/api/v1/leaderboard?rules=checkers")
        .send(&app)
        .await
        .assert_problem(422, "unknown_rules");

    // Inactivity: the deviation grows a step each month without a rated
    // game; a year without one takes a rating off the board, and in time
    // it is provisional again.
    let before = only_rating(&profile(&app, "alice").await)["deviation"]
        .as_i64()
        .unwrap();
    clock.advance(6 * PERIOD);
    let after = only_rating(&profile(&app, "alice").await)["deviation"]
        .as_i64()
        .unwrap();
    assert!(after > before, "{before} -> {after}");
    clock.advance(LEADERBOARD_ACTIVITY - 6 * PERIOD + DAY);
    let board = read(&app, "/api/v1/leaderboard?rules=standard").await;
    assert_eq!(board["entries"], json!([]), "{board:#}");
    assert_eq!(
        only_rating(&profile(&app, "alice").await)["provisional"],
        false
    );
    clock.advance(100 * PERIOD);
    assert_eq!(
        only_rating(&profile(&app, "alice").await)["provisional"],
        true
    );
}

async fn seeks_are_listed_to_and_accepted_by_those_in_range(db: Db) {
    let clock = clock();
    let (app, [alice, bob, carol, dave]) = TestApp::on(&db)
        .clock(clock.clone())
        .with_users(["alice", "bob", "carol", "dave"])
        .await;
    // Carol wins a rated game: about 1660 now. Bob has no rating (1500).
    black_mates(&app, (&dave, "dave"), (&carol, "carol")).await;
    let seek = |body: Value| {
        let alice = alice.clone();
        let app = &app;
        async move {
            post("/api/v1/challenges")
                .token(&alice)
                .json(body)
                .send(app)
                .await
        }
    };
    let created = seek(
        json!({"rules": "standard", "days_per_move": 3, "rated": true,
                              "rating_range": {"min": 1400, "max": 1600}}),
    )
    .await;
    let id = created.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        created.body["rating_range"],
        json!({"min": 1400, "max": 1600})
    );

    let list = |token: String, query: &'static str| {
        let app = &app;
        async move {
            get(format!("/api/v1/seeks{query}"))
                .token(&token)
                .send(app)
                .await
                .assert_status(200)
                .clone()
        }
    };
    let ids = |list: &Value| -> Vec<String> {
        list["seeks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&list(bob.clone(), "").await), std::slice::from_ref(&id));
    assert!(
        ids(&list(carol.clone(), "").await).is_empty(),
        "1660 is out of range"
    );
    assert!(
        ids(&list(alice.clone(), "").await).is_empty(),
        "one's own seeks are not listed"
    );
    for (query, listed) in [
        (
            "?rules=standard&days_per_move=3&rated=true&start=standard",
            true,
        ),
        ("?days_per_move=5", false),
        ("?rated=false", false),
        ("?start=chess960", false),
        ("?rules=switching", false),
    ] {
        assert_eq!(
            !ids(&list(bob.clone(), query).await).is_empty(),
            listed,
            "{query}"
        );
    }
    get("/api/v1/seeks?start=sideways")
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");

    // Out of range: refused, and the seek stays open for those in it.
    post(format!("/api/v1/challenges/{id}/accept"))
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(409, "outside_rating_range");
    let game = post(format!("/api/v1/challenges/{id}/accept"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(201)
        .clone();
    assert_eq!(game["rated"], true);

    // Ranges must make sense, on a challenge to anyone, with a pool.
    for body in [
        json!({"rules": "standard", "days_per_move": 3, "rating_range": {"min": 1600, "max": 1400}}),
        json!({"rules": "standard", "days_per_move": 3, "rating_range": {"min": -5, "max": 1400}}),
        json!({"rules": "standard", "days_per_move": 3, "opponent": "bob",
               "rating_range": {"min": 1400, "max": 1600}}),
        json!({"rules": "standard", "days_per_move": 3, "rating_range": {"min": 1400, "max": 1600},
               "start": {"kind": "fen", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}}),
    ] {
        seek(body.clone())
            .await
            .assert_problem(422, "invalid_rating_range");
    }

    // Pages, newest first.
    for days in [1, 2, 5] {
        clock.advance(SECOND);
        seek(json!({"rules": "standard", "days_per_move": days}))
            .await
            .assert_status(201);
    }
    let first = list(bob.clone(), "?limit=2").await;
    assert_eq!(first["seeks"][0]["days_per_move"], 5);
    assert_eq!(first["seeks"][1]["days_per_move"], 2);
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();
    let rest = get(format!("/api/v1/seeks?limit=2&cursor={cursor}"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(rest["seeks"].as_array().unwrap().len(), 1);
    assert_eq!(rest["seeks"][0]["days_per_move"], 1);
    assert_eq!(rest["next_cursor"], Value::Null);
}

// A rated game ended before each side has moved (resigned at once, or after
// White's first move; drawn by agreement; aborted) is a game not played,
// as lichess aborts it: no rating moves, and the game is shown unrated.
// Thirty of them took an account from 1500 to 1917 before.
async fn a_rated_game_ended_before_each_side_moved_is_unrated(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    for round in 0..6 {
        let game = game_between(&app, &alice, &bob, "bob", true).await;
        let id = game["id"].as_str().unwrap().to_owned();
        if round % 2 == 1 {
            play_all(&app, &game, &alice, &bob, &["e4"]).await;
        }
        let ended = match round / 2 {
            0 => act(&app, &id, &bob, "resign").await,
            1 => {
                act(&app, &id, &bob, "draw-offer").await;
                act(&app, &id, &alice, "draw-offer/accept").await
            }
            _ => act(&app, &id, &alice, "abort").await,
        };
        assert_ne!(ended["status"], "started", "round {round}: {ended:#}");
        let shown = get(format!("/api/v1/games/{id}"))
            .token(&alice)
            .send(&app)
            .await;
        let shown = shown.assert_status(200);
        assert_eq!(
            (&shown["rated"], &shown["ratings"]),
            (&json!(false), &Value::Null),
            "round {round}"
        );
        let pgn = get(format!("/api/v1/games/{id}/pgn"))
            .token(&alice)
            .send(&app)
            .await;
        assert!(
            !pgn.body.as_str().unwrap().contains("WhiteElo"),
            "round {round}"
        );
    }
    for name in ["alice", "bob"] {
        let p = profile(&app, name).await;
        assert_eq!(p["ratings"], json!([]), "{p:#}");
    }
    // Once each side has moved, a resignation counts.
    let game = game_between(&app, &alice, &bob, "bob", true).await;
    play_all(&app, &game, &alice, &bob, &["e4", "e5"]).await;
    act(&app, game["id"].as_str().unwrap(), &bob, "resign").await;
    let rating = only_rating(&profile(&app, "alice").await);
    assert!(rating["rating"].as_f64().unwrap() > 1500.0, "{rating:#}");
}

/// `POST /api/v1/games/{id}/{action}` by `token`, which must succeed: the game.
async fn act<B: MessageBody>(app: &impl Served<B>, id: &str, token: &str, action: &str) -> Value {
    post(format!("/api/v1/games/{id}/{action}"))
        .token(token)
        .send(app)
        .await
        .assert_status(200)
        .clone()
}
