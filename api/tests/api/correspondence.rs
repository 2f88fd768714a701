//! The correspondence life of a game, on a clock the tests move: deadlines
//! and timeouts, resignation, draws, abort, claims, vacation, conditional
//! moves.

use kingpost_api::{
    clock::{Clock, DAY, HOUR, MINUTE},
    db::{DbConnection, write_transaction},
    domain::game::{self, Players},
    models::{account, game as rows},
    notify::Outbox,
    server::sweep_once,
    views::StartSpec,
};
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{
        Db, TestApp, clock, delete, get, init, path_of, play_all, post, sign_up_for_a_year,
        start_game, start_standard_game,
    },
};

on_both_databases!(
    timeout_by_sweeper_and_by_read,
    timeout_against_a_lone_king_is_a_draw,
    timeout_in_captive_kings_is_never_a_draw,
    resignation_and_abort,
    draw_offers,
    claims_and_automatic_draws,
    vacation_stops_the_clock,
    conditional_moves,
    conditional_lines_deleted_and_continued,
    two_instances_sweep_each_game_once,
    deadline_warnings_reach_every_game_due,
    short_controls_are_warned_at_their_last_quarter,
    sweep_reaches_games_behind_vacations,
    sweep_ends_games_a_step_at_a_time,
    deadline_warnings_go_out_a_step_at_a_time,
    sweep_prunes_a_backlog_a_step_at_a_time,
    sweep_forgets_mail_and_pushes_a_day_after_they_are_done,
);

async fn timeout_by_sweeper_and_by_read(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let swept = start_standard_game(&app, &alice, &bob, "bob").await;
    assert_eq!(swept["time_left_seconds"], 3 * 86400, "three days per move");
    clock.advance(HOUR);
    let read = start_standard_game(&app, &alice, &bob, "bob").await;
    let read = play_all(&app, &read, &alice, &bob, &["e4"]).await;

    // A minute before the first deadline nothing happens; a minute after,
    // the sweeper ends that game (White to move: lost on time).
    clock.advance(3 * DAY - HOUR - MINUTE);
    assert_eq!(sweep_once(&state).await.unwrap(), 0);
    clock.advance(2 * MINUTE);
    assert_eq!(
        sweep_once(&state).await.unwrap(),
        1,
        "only the game whose deadline passed"
    );
    let swept = get(path_of(&swept)).token(&bob).send(&app).await;
    assert_eq!(swept.body["status"], "finished");
    assert_eq!(swept.body["result"], "0-1");
    assert_eq!(swept.body["termination"], "timeout");

    // A read shows the second game lost (Black to move) before any sweep.
    clock.advance(HOUR);
    let read = get(path_of(&read)).token(&alice).send(&app).await;
    assert_eq!(read.body["result"], "1-0");
    assert_eq!(read.body["termination"], "timeout");
    assert_eq!(
        sweep_once(&state).await.unwrap(),
        0,
        "nothing left to sweep"
    );
    post(format!("{}/moves", path_of(&read.body)))
        .token(&bob)
        .json(json!({"move": "e5", "ply": 1}))
        .send(&app)
        .await
        .assert_problem(409, "game_finished");
}

// docs/spec/rules.md §2.3, ends of a game: on time against a lone king, a draw.
async fn timeout_against_a_lone_king_is_a_draw(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let fen = "k7/8/8/8/8/8/8/KR6 w - - 0 1";
    let white_late = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "standard",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    let black_late = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "standard",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    let black_late = play_all(&app, &black_late, &alice, &bob, &["Rb2"]).await;
    clock.advance(4 * DAY);
    let white_late = get(path_of(&white_late)).token(&alice).send(&app).await;
    assert_eq!(
        white_late.body["result"], "1/2-1/2",
        "Black has no mating material"
    );
    assert_eq!(white_late.body["termination"], "timeout");
    let black_late = get(path_of(&black_late)).token(&alice).send(&app).await;
    assert_eq!(black_late.body["result"], "1-0", "White has a rook");
}

// docs/spec/rules.md §5, rule 4: no draw by insufficient material, on time either.
async fn timeout_in_captive_kings_is_never_a_draw(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let fen = "8/8/8/3K4/8/8/8/4k3 w - - 0 1 c";
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "captive-kings",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    clock.advance(4 * DAY);
    let game = get(path_of(&game)).token(&alice).send(&app).await;
    assert_eq!(game.body["result"], "0-1");
    assert_eq!(game.body["termination"], "timeout");
}

async fn resignation_and_abort(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let standard = json!({"kind": "standard"});

    let game = start_game(&app, &alice, &bob, "bob", "standard", standard.clone()).await;
    post(format!("{}/resign", path_of(&game)))
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(403, "not_a_player");
    let resigned = post(format!("{}/resign", path_of(&game)))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(resigned.assert_status(200)["result"], "1-0");
    assert_eq!(resigned.body["termination"], "resignation");
    post(format!("{}/resign", path_of(&game)))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(409, "game_finished");

    // Abort: before each side has moved, by either player; the game says
    // so in each side's actions.
    let fresh = start_game(&app, &alice, &bob, "bob", "standard", standard.clone()).await;
    let may = |game: &Value, side: &str, what: &str| game["actions"][side][what].as_bool().unwrap();
    for side in ["white", "black"] {
        assert!(may(&fresh, side, "abort") && may(&fresh, side, "resign"));
        assert!(may(&fresh, side, "offer_draw") && !may(&fresh, side, "answer_draw"));
    }
    assert!(may(&fresh, "white", "move") && !may(&fresh, "black", "move"));
    let aborted = post(format!("{}/abort", path_of(&fresh)))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(aborted.assert_status(200)["status"], "aborted");
    assert_eq!(aborted.body["result"], Value::Null);
    let one_move = start_game(&app, &alice, &bob, "bob", "standard", standard.clone()).await;
    let one_move = play_all(&app, &one_move, &alice, &bob, &["e4"]).await;
    let aborted = post(format!("{}/abort", path_of(&one_move)))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(aborted.assert_status(200)["termination"], "aborted");
    let two_moves = start_game(&app, &alice, &bob, "bob", "standard", standard).await;
    let two_moves = play_all(&app, &two_moves, &alice, &bob, &["e4", "e5"]).await;
    assert!(!may(&two_moves, "white", "abort") && !may(&two_moves, "black", "abort"));
    assert!(may(&two_moves, "white", "resign"));
    post(format!("{}/abort", path_of(&two_moves)))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(409, "abort_refused");
    let over = get(path_of(&game)).token(&alice).send(&app).await;
    assert_eq!(
        over.body["actions"],
        json!({"white": false_actions(), "black": false_actions()}),
        "nothing once it is over"
    );
    let listed = get("/api/v1/games?status=finished")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        listed.body["games"].as_array().unwrap().len(),
        3,
        "resigned and aborted games are over"
    );
}

/// A side's actions when it may do nothing.
fn false_actions() -> Value {
    json!({"move": false, "resign": false, "abort": false, "offer_draw": false,
           "answer_draw": false, "withdraw_draw": false, "claim_draw": false})
}

async fn draw_offers(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let offer = format!("{path}/draw-offer");

    // Offer, decline; offer, withdraw.
    let offered = post(&offer).token(&alice).send(&app).await;
    assert_eq!(offered.assert_status(200)["draw_offer"], "white");
    let (white, black) = (
        &offered.body["actions"]["white"],
        &offered.body["actions"]["black"],
    );
    assert_eq!(
        (
            white["offer_draw"].as_bool(),
            white["withdraw_draw"].as_bool(),
            white["answer_draw"].as_bool()
        ),
        (Some(false), Some(true), Some(false)),
        "the offerer may withdraw it"
    );
    assert_eq!(
        (
            black["offer_draw"].as_bool(),
            black["withdraw_draw"].as_bool(),
            black["answer_draw"].as_bool()
        ),
        (Some(false), Some(false), Some(true)),
        "the opponent may answer it"
    );
    post(format!("{offer}/accept"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(409, "no_draw_offer");
    let declined = post(format!("{offer}/decline"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(declined.assert_status(200)["draw_offer"], Value::Null);
    post(&offer)
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    delete(&offer)
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(409, "no_draw_offer");
    let withdrawn = delete(&offer).token(&alice).send(&app).await;
    assert_eq!(withdrawn.assert_status(200)["draw_offer"], Value::Null);

    // An offer with a move stands through it, and lapses when the opponent moves.
    let ply = withdrawn.body["ply"].clone();
    let with_move = post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "e4", "ply": ply, "offer_draw": true}))
        .send(&app)
        .await;
    assert_eq!(with_move.assert_status(200)["draw_offer"], "white");
    let lapsed = play_all(&app, &with_move.body, &alice, &bob, &["e5"]).await;
    assert_eq!(lapsed["draw_offer"], Value::Null);

    // Offered with a move and accepted.
    let with_move = post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "Nf3", "ply": 2, "offer_draw": true}))
        .send(&app)
        .await;
    with_move.assert_status(200);
    let agreed = post(format!("{offer}/accept")).token(&bob).send(&app).await;
    assert_eq!(agreed.assert_status(200)["result"], "1/2-1/2");
    assert_eq!(agreed.body["termination"], "agreement");

    // Offering while the opponent's offer stands is agreeing.
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    post(format!("{}/draw-offer", path_of(&game)))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    let agreed = post(format!("{}/draw-offer", path_of(&game)))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(agreed.assert_status(200)["termination"], "agreement");
}

// docs/spec/rules.md §2.3, ends of a game: threefold and 50 moves claimed by the player
// to move; fivefold drawn at once.
async fn claims_and_automatic_draws(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];

    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let claim = format!("{}/claim-draw", path_of(&game));
    let refused = post(&claim).token(&alice).send(&app).await;
    refused.assert_problem(409, "claim_refused");
    let twice = play_all(&app, &game, &alice, &bob, &shuffle).await;
    assert_eq!(twice["claimable_draw"], Value::Null);
    post(&claim)
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(409, "claim_refused");
    let thrice = play_all(&app, &twice, &alice, &bob, &shuffle).await;
    assert_eq!(thrice["claimable_draw"], "threefold_repetition");
    post(&claim)
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(403, "not_your_turn");
    let drawn = post(&claim).token(&alice).send(&app).await;
    assert_eq!(drawn.assert_status(200)["result"], "1/2-1/2");
    assert_eq!(drawn.body["termination"], "threefold_repetition");

    let fen = "k7/8/8/8/8/8/8/KR6 w - - 99 80";
    let fifty = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "standard",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    let fifty = play_all(&app, &fifty, &alice, &bob, &["Rb2"]).await;
    assert_eq!(fifty["claimable_draw"], "fifty_moves");
    let drawn = post(format!("{}/claim-draw", path_of(&fifty)))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(drawn.assert_status(200)["termination"], "fifty_moves");

    let fivefold = start_standard_game(&app, &alice, &bob, "bob").await;
    let moves: Vec<&str> = shuffle.iter().cycle().take(16).copied().collect();
    let fivefold = play_all(&app, &fivefold, &alice, &bob, &moves).await;
    assert_eq!(
        fivefold["status"], "finished",
        "the fifth time the start position stands"
    );
    assert_eq!(fivefold["termination"], "fivefold_repetition");
}

async fn vacation_stops_the_clock(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let vacation = "/api/v1/account/vacation";
    let fresh = get(vacation).token(&bob).send(&app).await;
    assert_eq!(
        fresh.assert_status(200)["balance_days"],
        2.5,
        "the first month's vacation"
    );

    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let game = play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let deadline = game["deadline"].as_str().unwrap().to_owned();

    // Bob goes on vacation for a day: his deadline moves on by a day.
    let started = post(vacation).token(&bob).send(&app).await;
    assert_eq!(started.assert_status(200)["on_vacation"], true);
    post(vacation)
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "already_on_vacation");
    clock.advance(DAY);
    let seen = get(path_of(&game)).token(&alice).send(&app).await;
    assert_eq!(
        seen.body["black"]["on_vacation"], true,
        "the opponent sees it"
    );
    assert_eq!(seen.body["time_left_seconds"], 3 * 86400);
    let ended = delete(vacation).token(&bob).send(&app).await;
    assert_eq!(ended.assert_status(200)["on_vacation"], false);
    assert_eq!(ended.body["balance_days"], 1.5);
    let after = get(path_of(&game)).token(&alice).send(&app).await;
    assert_ne!(after.body["deadline"], deadline.as_str());
    assert_eq!(
        after.body["time_left_seconds"],
        3 * 86400,
        "the day on vacation did not count"
    );
    assert_eq!(after.body["black"]["on_vacation"], false);

    // The allowance runs out: a vacation ends by itself when it is spent.
    post(vacation)
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    clock.advance(2 * DAY);
    let spent = get(vacation).token(&bob).send(&app).await;
    assert_eq!(spent.body["on_vacation"], false);
    assert_eq!(spent.body["balance_days"], 0.0);
    post(vacation)
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "no_vacation_left");
    // 1.5 days of it held the clock; then three days run.
    let held = get(path_of(&game)).token(&alice).send(&app).await;
    assert_eq!(held.body["status"], "started");
    assert_eq!(held.body["time_left_seconds"], (3 * DAY - DAY / 2) / 1000);
    clock.advance(3 * DAY);
    let lost = get(path_of(&game)).token(&alice).send(&app).await;
    assert_eq!(lost.body["termination"], "timeout");

    // A month on, more vacation is earned.
    clock.advance(30 * DAY);
    let earned = get(vacation).token(&bob).send(&app).await;
    assert_eq!(earned.body["balance_days"], 2.5);
}

async fn conditional_moves(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let conditionals = format!("{path}/conditionals");
    fn put<'a>(path: &str, token: &'a str, lines: Value) -> crate::support::Call<'a> {
        crate::support::Call::new(actix_web::http::Method::PUT, path)
            .token(token)
            .json(json!({"lines": lines}))
    }

    // Only while the opponent is to move.
    put(&conditionals, &alice, json!([["e4", "e5"]]))
        .send(&app)
        .await
        .assert_problem(409, "not_opponents_turn");
    play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let refused = put(&conditionals, &alice, json!([["e5", "Nf3", "Nc6", "Ke3"]]))
        .send(&app)
        .await;
    refused.assert_problem(422, "invalid_conditionals");
    // Said by the moves before it, not by a FEN a phone cannot show.
    assert_eq!(
        refused.body["detail"],
        "line 1: `Ke3` is not a legal move after e5 Nf3 Nc6"
    );
    put(&conditionals, &alice, json!([["e5"]]))
        .send(&app)
        .await
        .assert_problem(422, "invalid_conditionals");
    put(&conditionals, &alice, json!([["e5", "Nf3"], ["e5", "Nc3"]]))
        .send(&app)
        .await
        .assert_problem(422, "invalid_conditionals");
    let stored = put(
        &conditionals,
        &alice,
        json!([
            ["e5", "Nf3"],
            ["c5", "Nf3", "Nc6", "d4"],
            ["c5", "g1f3", "d6", "d4"]
        ]),
    )
    .send(&app)
    .await;
    assert_eq!(
        stored.assert_status(200)["lines"],
        json!([
            ["e7e5", "g1f3"],
            ["c7c5", "g1f3", "b8c6", "d2d4"],
            ["c7c5", "g1f3", "d7d6", "d2d4"]
        ])
    );
    // And in SAN, as people write them (UCI typed comes back as SAN too).
    assert_eq!(
        stored.body["san"],
        json!([
            ["e5", "Nf3"],
            ["c5", "Nf3", "Nc6", "d4"],
            ["c5", "Nf3", "d6", "d4"]
        ])
    );
    let read = get(&conditionals).token(&alice).send(&app).await;
    assert_eq!(read.body["san"], stored.body["san"]);
    // Never seen by the opponent: Bob reads only his own (none).
    let bobs = get(&conditionals).token(&bob).send(&app).await;
    assert_eq!(bobs.assert_status(200)["lines"], json!([]));

    // Bob plays c5: Alice's Nf3 follows at once.
    let answered = post(format!("{path}/moves"))
        .token(&bob)
        .json(json!({"move": "c5", "ply": 1}))
        .send(&app)
        .await;
    let answered = answered.assert_status(200);
    assert_eq!(answered["ply"], 3);
    // The answer carries the moves after the ply sent: Bob's and the reply.
    let played: Vec<&Value> = answered["played"].as_array().unwrap().iter().collect();
    assert_eq!(played.len(), 2);
    assert_eq!(
        (&played[0]["san"], &played[0]["ply"]),
        (&json!("c5"), &json!(2))
    );
    assert_eq!(
        (&played[1]["san"], &played[1]["ply"]),
        (&json!("Nf3"), &json!(3))
    );
    assert_eq!(answered["turn"], "black");
    let left = get(&conditionals).token(&alice).send(&app).await;
    assert_eq!(
        left.body["lines"],
        json!([["b8c6", "d2d4"], ["d7d6", "d2d4"]])
    );

    // Bob plays a move no line expects: the lines are dropped.
    let next = post(format!("{path}/moves"))
        .token(&bob)
        .json(json!({"move": "a6", "ply": 3}))
        .send(&app)
        .await;
    assert_eq!(next.assert_status(200)["ply"], 4);
    let left = get(&conditionals).token(&alice).send(&app).await;
    assert_eq!(left.body["lines"], json!([]));

    let carol = sign_up_for_a_year(&app, "carol").await;
    get(&conditionals)
        .token(&carol)
        .send(&app)
        .await
        .assert_problem(403, "not_a_player");
    delete(&conditionals)
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
}

// A move reads a player's lines only when the game is marked as holding
// some: deleted lines play nothing, and a line followed to its end plays
// each of its replies, its rest kept between the opponent's moves.
async fn conditional_lines_deleted_and_continued(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = path_of(&game);
    let conditionals = format!("{path}/conditionals");
    let store = |lines: Value| {
        crate::support::Call::new(actix_web::http::Method::PUT, &conditionals)
            .token(&alice)
            .json(json!({"lines": lines}))
    };
    let bob_plays = |san: &str, ply: u32| {
        post(format!("{path}/moves"))
            .token(&bob)
            .json(json!({"move": san, "ply": ply}))
    };
    play_all(&app, &game, &alice, &bob, &["e4"]).await;
    store(json!([["e5", "Nf3"]]))
        .send(&app)
        .await
        .assert_status(200);
    delete(&conditionals)
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    let moved = bob_plays("e5", 1).send(&app).await;
    let moved = moved.assert_status(200);
    assert_eq!(
        (&moved["ply"], &moved["turn"]),
        (&json!(2), &json!("white"))
    );

    post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "Nf3", "ply": 2}))
        .send(&app)
        .await
        .assert_status(200);
    store(json!([["Nc6", "Bb5", "a6", "Ba4"]]))
        .send(&app)
        .await
        .assert_status(200);
    let answered = bob_plays("Nc6", 3).send(&app).await;
    assert_eq!(answered.assert_status(200)["ply"], 5);
    let answered = bob_plays("a6", 5).send(&app).await;
    let answered = answered.assert_status(200);
    assert_eq!(answered["ply"], 7);
    assert_eq!(answered["played"][1]["san"], "Ba4");
    let left = get(&conditionals).token(&alice).send(&app).await;
    assert_eq!(left.assert_status(200)["lines"], json!([]));
    let moved = bob_plays("Nf6", 7).send(&app).await;
    let moved = moved.assert_status(200);
    assert_eq!(
        (&moved["ply"], &moved["turn"]),
        (&json!(8), &json!("white"))
    );
}

async fn two_instances_sweep_each_game_once(db: Db) {
    let clock = clock();
    let one = TestApp::on(&db).clock(clock.clone()).state();
    let two = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(one.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let mut games = Vec::new();
    for _ in 0..6 {
        games.push(start_standard_game(&app, &alice, &bob, "bob").await);
    }
    clock.advance(4 * DAY);
    let (a, b) = futures_util::future::join(sweep_once(&one), sweep_once(&two)).await;
    assert_eq!(
        a.unwrap() + b.unwrap(),
        6,
        "each game ended once, by one of the two"
    );
    for game in &games {
        let seen = get(path_of(game)).token(&alice).send(&app).await;
        assert_eq!(seen.body["termination"], "timeout");
    }
    assert_eq!(
        sweep_once(&one).await.unwrap() + sweep_once(&two).await.unwrap(),
        0
    );
}

/// Two players with an account each, for games written straight to the
/// database: the fixtures of the sweep's paging tests.
fn players(conn: &mut DbConnection, white: &str, black: &str) -> Players {
    let id_of = |conn: &mut _, name| account::find_by_username(conn, name).unwrap().unwrap().id;
    Players {
        white_id: id_of(conn, white),
        white_name: white.to_owned(),
        black_id: id_of(conn, black),
        black_name: black.to_owned(),
    }
}

/// Stores a new standard game of `days` per move, begun at `now`.
fn store_game(conn: &mut DbConnection, id: &str, players: &Players, days: i32, now: i64) {
    let row = game::new_game(
        id.into(),
        kingpost_core::Rules::Standard,
        &StartSpec::Standard {},
        players.clone(),
        days,
        now,
    )
    .unwrap();
    rows::insert(conn, &row).unwrap();
}

/// A `deadline_near` event goes out a day before the deadline, or a
/// quarter of the turn's time before it when that is shorter (README,
/// correspondence): five hundred games with earlier deadlines but not yet
/// in their window do not hold back one that is.
async fn deadline_warnings_reach_every_game_due(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    sign_up_for_a_year(&app, "alice").await;
    sign_up_for_a_year(&app, "bob").await;
    let mut conn = state.pool.get().unwrap();
    let players = players(&mut conn, "alice", "bob");
    // 14 days a move: its warning comes a day before the deadline, not at
    // its last quarter (3.5 days).
    store_game(&mut conn, "slow", &players, 14, clock.now());
    clock.advance(12 * DAY + 13 * HOUR);
    let warned = |conn: &mut _, id: &str| rows::find(conn, &id.into()).unwrap().unwrap().warned_ply;
    sweep_once(&state).await.unwrap();
    assert_eq!(warned(&mut conn, "slow"), None, "a day and 11 hours left");
    // One day a move: 12 hours on, their deadlines come before the slow
    // game's, their quarter (6 hours) not yet.
    write_transaction(&mut conn, |conn| {
        (0..500).for_each(|i| store_game(conn, &format!("fast{i}"), &players, 1, clock.now()));
        Ok::<_, diesel::result::Error>(())
    })
    .unwrap();
    clock.advance(12 * HOUR);
    sweep_once(&state).await.unwrap();
    assert_eq!(warned(&mut conn, "slow"), Some(0), "23 hours left");
    assert_eq!(warned(&mut conn, "fast0"), None, "12 hours left");
}

/// A short control's warning comes at the last quarter of the turn (README,
/// correspondence): six hours before the deadline of a day a move.
async fn short_controls_are_warned_at_their_last_quarter(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    sign_up_for_a_year(&app, "alice").await;
    sign_up_for_a_year(&app, "bob").await;
    let mut conn = state.pool.get().unwrap();
    let players = players(&mut conn, "alice", "bob");
    store_game(&mut conn, "fast", &players, 1, clock.now());
    let warned = |conn: &mut _| {
        rows::find(conn, &"fast".into())
            .unwrap()
            .unwrap()
            .warned_ply
    };
    clock.advance(17 * HOUR + 59 * MINUTE);
    sweep_once(&state).await.unwrap();
    assert_eq!(warned(&mut conn), None, "6 hours and a minute left");
    clock.advance(2 * MINUTE);
    sweep_once(&state).await.unwrap();
    assert_eq!(warned(&mut conn), Some(0), "5 hours 59 minutes left");
}

/// A game past its deadline is lost by the side to move (README,
/// correspondence) even when five hundred games whose deadlines passed
/// earlier stand still for a player's vacation.
async fn sweep_reaches_games_behind_vacations(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    for name in ["alice", "bob", "carol"] {
        sign_up_for_a_year(&app, name).await;
    }
    let mut conn = state.pool.get().unwrap();
    let held = players(&mut conn, "alice", "bob");
    write_transaction(&mut conn, |conn| {
        (0..500).for_each(|i| store_game(conn, &format!("held{i}"), &held, 1, clock.now()));
        Ok::<_, diesel::result::Error>(())
    })
    .unwrap();
    clock.advance(HOUR);
    let free = players(&mut conn, "carol", "bob");
    store_game(&mut conn, "due", &free, 1, clock.now());
    // Alice, to move in the 500, goes on vacation with 30 days to spend.
    let alice = account::find_by_username(&mut conn, "alice")
        .unwrap()
        .unwrap();
    account::set_vacation(
        &mut conn,
        &alice.id,
        30 * DAY,
        clock.now() + 30 * DAY,
        Some(clock.now()),
    )
    .unwrap();
    clock.advance(DAY + HOUR);
    assert_eq!(sweep_once(&state).await.unwrap(), 1);
    let status =
        |conn: &mut _, id: &str| rows::find(conn, &id.into()).unwrap().unwrap().status.key();
    assert_eq!(status(&mut conn, "due"), "finished");
    assert_eq!(status(&mut conn, "held0"), "started");
}

/// Runs a sweep as of `now` in steps of two games, noting what `seen`
/// says after each step but the last.
fn sweep_by_twos<T>(
    conn: &mut DbConnection,
    now: i64,
    mut seen: impl FnMut(&mut DbConnection, &game::Sweep) -> T,
) -> (game::Sweep, Vec<T>) {
    let mut sweep = game::Sweep::new(now, 2);
    let mut outbox = Outbox::default();
    let mut after_each = Vec::new();
    while sweep.step(conn, &mut outbox).unwrap() {
        after_each.push(seen(conn, &sweep));
    }
    (sweep, after_each)
}

/// How many of the games `{prefix}0` to `{prefix}{count - 1}` are as `is`.
fn count_games(
    conn: &mut DbConnection,
    prefix: &str,
    count: usize,
    is: impl Fn(&rows::GameRow) -> bool,
) -> usize {
    (0..count)
        .filter(|i| {
            let row = rows::find(conn, &format!("{prefix}{i}").as_str().into()).unwrap();
            is(&row.unwrap())
        })
        .count()
}

/// A sweep ends games a step at a time (each step its own turn at the
/// database's writers, so that a move waits for one step, not for every
/// game due after a long stop), and goes on where the last step stopped
/// until none is left: games past their deadline are lost by the side to
/// move (README, correspondence), each once.
async fn sweep_ends_games_a_step_at_a_time(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    sign_up_for_a_year(&app, "alice").await;
    sign_up_for_a_year(&app, "bob").await;
    let mut conn = state.pool.get().unwrap();
    let players = players(&mut conn, "alice", "bob");
    for i in 0..5 {
        store_game(&mut conn, &format!("due{i}"), &players, 1, clock.now());
    }
    clock.advance(DAY + HOUR);
    let (sweep, after_each) = sweep_by_twos(&mut conn, clock.now(), |conn, sweep| {
        let finished = count_games(conn, "due", 5, |row| row.status.key() == "finished");
        (sweep.ended(), finished)
    });
    assert_eq!(
        after_each[..3],
        [(2, 2), (4, 4), (5, 5)],
        "two games a step, the last step's one"
    );
    assert_eq!(sweep.ended(), 5);
    assert_eq!(
        sweep_once(&state).await.unwrap(),
        0,
        "nothing left to sweep"
    );
}

/// Deadline warnings go out a step at a time too, in order of the time
/// each falls due (a quarter of the turn's time before the deadline:
/// README, correspondence), every game due warned once.
async fn deadline_warnings_go_out_a_step_at_a_time(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    sign_up_for_a_year(&app, "alice").await;
    sign_up_for_a_year(&app, "bob").await;
    let mut conn = state.pool.get().unwrap();
    let players = players(&mut conn, "alice", "bob");
    // One day a move, begun a minute apart: 19 hours on, each is within
    // its last quarter (6 hours), none past its deadline.
    for i in 0..5 {
        store_game(&mut conn, &format!("near{i}"), &players, 1, clock.now());
        clock.advance(MINUTE);
    }
    clock.advance(19 * HOUR);
    let (sweep, after_each) = sweep_by_twos(&mut conn, clock.now(), |conn, _| {
        count_games(conn, "near", 5, |row| row.warned_ply == Some(0))
    });
    // The first step finds nothing past its deadline.
    assert_eq!(after_each[..4], [0, 2, 4, 5], "two warnings a step");
    assert_eq!(sweep.ended(), 0);
}

/// Events are kept 30 days and idempotency keys a day (README, events and
/// idempotency); a backlog of older ones, as after a long stop, is pruned
/// a bounded number of rows a step, each step its own turn at the writers,
/// until none is left, and what is younger is kept.
async fn sweep_prunes_a_backlog_a_step_at_a_time(db: Db) {
    use diesel::RunQueryDsl;
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    sign_up_for_a_year(&app, "alice").await;
    let mut conn = state.pool.get().unwrap();
    let alice = account::find_by_username(&mut conn, "alice")
        .unwrap()
        .unwrap()
        .id;
    let now = clock.now();
    let count = |conn: &mut DbConnection, table: &str, before: i64| -> i64 {
        rows_where(conn, table, &format!("created_at < {before}"))
    };
    // A hundred of each too old, one a minute, and five young ones.
    let old = |i: i64, kept_for: i64| now - kept_for - (i + 1) * MINUTE;
    for i in 0..105 {
        let (event_at, key_at) = if i < 100 {
            (old(i, 30 * DAY), old(i, DAY))
        } else {
            (now - HOUR, now - HOUR)
        };
        diesel::sql_query(format!(
            "INSERT INTO events (account_id, kind, data, created_at) \
             VALUES ('{alice}', 'game_started', '{{}}', {event_at})"
        ))
        .execute(&mut **conn)
        .unwrap();
        diesel::sql_query(format!(
            "INSERT INTO idempotency_keys (scope, key, request_hash, created_at) \
             VALUES ('{alice}', 'k{i}', '-', {key_at})"
        ))
        .execute(&mut **conn)
        .unwrap();
    }
    let old_rows = |conn: &mut DbConnection| {
        (
            count(conn, "events", now - 30 * DAY),
            count(conn, "idempotency_keys", now - DAY),
        )
    };
    assert_eq!(old_rows(&mut conn), (100, 100));

    let (_, mut after_each) = sweep_by_twos(&mut conn, now, |conn, _| old_rows(conn));
    after_each.push(old_rows(&mut conn));
    // Steps of two games prune at most forty rows of each kind.
    let mut last = (100, 100);
    let mut pruning_steps = 0;
    for &(events, keys) in &after_each {
        assert!(
            last.0 - events <= 40 && last.1 - keys <= 40,
            "{after_each:?}"
        );
        pruning_steps += usize::from(events < last.0);
        last = (events, keys);
    }
    assert_eq!(pruning_steps, 3, "{after_each:?}");
    assert_eq!(old_rows(&mut conn), (0, 0));
    assert_eq!(
        count(&mut conn, "events", now),
        5,
        "the young events are kept"
    );
    assert_eq!(count(&mut conn, "idempotency_keys", now), 5);
}

/// Mails and pushes are kept a day once sent or given up (README,
/// notifications); those still to send are kept however old, and so are
/// those done within the day.
async fn sweep_forgets_mail_and_pushes_a_day_after_they_are_done(db: Db) {
    use diesel::RunQueryDsl;
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    sign_up_for_a_year(&app, "alice").await;
    let mut conn = state.pool.get().unwrap();
    let alice = account::find_by_username(&mut conn, "alice")
        .unwrap()
        .unwrap()
        .id;
    let now = clock.now();
    let (old, young) = (now - DAY - MINUTE, now - HOUR);
    let outboxes = [
        ("mail_outbox", ["sent", "failed", "pending"].as_slice()),
        (
            "push_outbox",
            ["sent", "superseded", "failed", "pending"].as_slice(),
        ),
    ];
    for (table, statuses) in outboxes {
        for status in statuses {
            for at in [old, young] {
                let row = match table {
                    "mail_outbox" => format!(
                        "INSERT INTO mail_outbox (account_id, to_address, subject, text_body, \
                         html_body, created_at, status, attempts, next_attempt_at, kind) \
                         VALUES ('{alice}', 'a@example.org', '{status}', '', '', {at}, '{status}', 1, {at}, 'notice')"
                    ),
                    _ => format!(
                        "INSERT INTO push_outbox (subscription_id, event_id, created_at, status, \
                         attempts, next_attempt_at) VALUES ('{status}', 1, {at}, '{status}', 1, {at})"
                    ),
                };
                diesel::sql_query(row).execute(&mut **conn).unwrap();
            }
        }
    }
    let left = |conn: &mut DbConnection, table: &str, status: &str| -> i64 {
        rows_where(conn, table, &format!("status = '{status}'"))
    };
    sweep_by_twos(&mut conn, now, |_, _| ());
    for (table, statuses) in outboxes {
        for status in statuses {
            let kept = if *status == "pending" { 2 } else { 1 };
            assert_eq!(left(&mut conn, table, status), kept, "{table} {status}");
        }
    }
}

/// How many rows of `table` meet `condition` (SQL).
fn rows_where(conn: &mut DbConnection, table: &str, condition: &str) -> i64 {
    use diesel::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    diesel::sql_query(format!(
        "SELECT COUNT(*) AS n FROM {table} WHERE {condition}"
    ))
    .get_result::<Count>(conn)
    .unwrap()
    .n
}
