//! Clocks that carry time over, played with the manual clock: ICCF's N
//! moves in D days and a bank with an increment and a cap, their deadlines
//! across many moves, vacation stopping them, timeouts by a read and by the
//! sweeper, and the PGN's `TimeControl`.

use actix_web::body::MessageBody;
use serde_json::{Value, json};

use kingpost_api::{
    clock::{Clock, DAY, HOUR, SECOND},
    server::sweep_once,
};

use crate::{
    on_both_databases,
    support::{Db, Served, TestApp, clock, delete, get, init, post, sign_up_for_a_year},
};

on_both_databases!(
    a_control_carries_unused_time_over,
    both_clocks_across_thirty_two_plies,
    a_bank_adds_its_increment_up_to_its_cap,
    vacation_stops_a_bank_and_the_sweeper_ends_it_on_time,
    a_challenge_names_days_per_move_or_a_clock
);

/// `white` challenges `black` to a standard game under `clock`; the game.
async fn clocked_game<B: MessageBody>(
    app: &impl Served<B>,
    white: &str,
    black: &str,
    clock: Value,
) -> Value {
    let challenge = post("/api/v1/challenges")
        .token(white)
        .json(json!({"rules": "standard", "color": "white", "opponent": "bob", "clock": clock}))
        .send(app)
        .await;
    assert_eq!(challenge.assert_status(201)["clock"], clock);
    assert_eq!(challenge.body["days_per_move"], 0);
    let id = challenge.body["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/challenges/{id}/accept"))
        .token(black)
        .send(app)
        .await
        .assert_status(201)
        .clone()
}

/// Plays `san` for `token` at the game's current ply: the answer.
async fn play<B: MessageBody>(app: &impl Served<B>, game: &Value, token: &str, san: &str) -> Value {
    let id = game["id"].as_str().unwrap();
    let ply = read_game(app, game, token).await["ply"].clone();
    post(format!("/api/v1/games/{id}/moves"))
        .token(token)
        .json(json!({"move": san, "ply": ply}))
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

/// The game as `token` reads it now.
async fn read_game<B: MessageBody>(app: &impl Served<B>, game: &Value, token: &str) -> Value {
    get(format!("/api/v1/games/{}", game["id"].as_str().unwrap()))
        .token(token)
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

/// The game's PGN.
async fn pgn_of<B: MessageBody>(app: &impl Served<B>, game: &Value, token: &str) -> String {
    get(format!(
        "/api/v1/games/{}/pgn",
        game["id"].as_str().unwrap()
    ))
    .token(token)
    .send(app)
    .await
    .body
    .as_str()
    .unwrap()
    .to_owned()
}

fn days(seconds: &Value) -> f64 {
    seconds.as_i64().unwrap() as f64 / 86_400.0
}

/// The deadline's distance from `now`, in days.
fn deadline_in_days(game: &Value, now: i64) -> f64 {
    let deadline = kingpost_api::clock::parse_rfc3339(game["deadline"].as_str().unwrap()).unwrap();
    (deadline - now) as f64 / DAY as f64
}

// 2 moves in 10 days: each side's first two moves share 10 days, and what
// they leave is carried over when the control adds 10 more.
async fn a_control_carries_unused_time_over(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let spec = json!({"kind": "control", "moves": 2, "days": 10});
    let game = clocked_game(&app, &alice, &bob, spec.clone()).await;
    assert_eq!(game["clock"]["spec"], spec);
    assert_eq!(days(&game["clock"]["white_seconds"]), 10.0);
    assert_eq!(days(&game["clock"]["black_seconds"]), 10.0);
    assert_eq!(game["clock"]["moves_to_control"], 2);
    assert_eq!(deadline_in_days(&game, clock.now()), 10.0);

    clock.advance(3 * DAY);
    let after = play(&app, &game, &alice, "e4").await;
    assert_eq!(days(&after["clock"]["white_seconds"]), 7.0, "{after:#}");
    assert_eq!(days(&after["clock"]["black_seconds"]), 10.0);
    assert_eq!(after["clock"]["moves_to_control"], 2, "Black's first move");
    assert_eq!(deadline_in_days(&after, clock.now()), 10.0);

    clock.advance(4 * DAY);
    let after = play(&app, &game, &bob, "e5").await;
    assert_eq!(days(&after["clock"]["black_seconds"]), 6.0);
    assert_eq!(after["clock"]["moves_to_control"], 1, "White's second move");
    assert_eq!(deadline_in_days(&after, clock.now()), 7.0);

    // White's second move completes the control: 1 day left, 10 added.
    clock.advance(6 * DAY);
    let after = play(&app, &game, &alice, "Nf3").await;
    assert_eq!(days(&after["clock"]["white_seconds"]), 11.0);
    assert_eq!(deadline_in_days(&after, clock.now()), 6.0, "Black's 6 days");

    // Black's 6 days pass: any read shows the game lost on time.
    clock.advance(6 * DAY + SECOND);
    let read = read_game(&app, &game, &alice).await;
    assert_eq!(read["status"], "finished");
    assert_eq!(read["result"], "1-0");
    assert_eq!(read["termination"], "timeout");
    assert_eq!(read["clock"]["black_seconds"], Value::Null);
    assert_eq!(days(&read["clock"]["white_seconds"]), 11.0);

    let text = pgn_of(&app, &game, &alice).await;
    assert!(text.contains("[TimeControl \"2/864000\"]"), "{text}");
    assert!(!text.contains("CorrespondenceDaysPerMove"), "{text}");
}

// 3 days, 1 more after each move, never above 4.
async fn a_bank_adds_its_increment_up_to_its_cap(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let spec = json!({"kind": "bank", "initial_days": 3, "increment_days": 1, "max_days": 4});
    let game = clocked_game(&app, &alice, &bob, spec).await;
    let mut white_days = 3.0;
    // White's moves, each after `spent` days: the bank after it.
    for (spent, san, reply) in [(0.0, "e4", "e5"), (1.0, "Nf3", "Nc6"), (2.5, "Bc4", "Bc5")] {
        clock.advance((spent * DAY as f64) as i64);
        let after = play(&app, &game, &alice, san).await;
        white_days = f64::min(white_days - spent + 1.0, 4.0);
        assert_eq!(
            days(&after["clock"]["white_seconds"]),
            white_days,
            "{san}: {after:#}"
        );
        clock.advance(HOUR);
        play(&app, &game, &bob, reply).await;
    }
    let text = pgn_of(&app, &game, &alice).await;
    assert!(text.contains("[TimeControl \"259200+86400\"]"), "{text}");
}

// A vacation stops the bank of the side on vacation: the days away are
// not spent, whether the move comes after it or during it. Past its
// deadline, the sweeper ends the game.
async fn vacation_stops_a_bank_and_the_sweeper_ends_it_on_time(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let spec = json!({"kind": "bank", "initial_days": 3, "increment_days": 1, "max_days": 10});
    let game = clocked_game(&app, &alice, &bob, spec).await;
    play(&app, &game, &alice, "e4").await;
    // Bob: a day of thought, two days away, a day more.
    clock.advance(DAY);
    post("/api/v1/account/vacation")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    clock.advance(2 * DAY);
    delete("/api/v1/account/vacation")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    clock.advance(DAY);
    let after = play(&app, &game, &bob, "e5").await;
    // 3 days, 2 spent (the vacation not), 1 added.
    assert_eq!(days(&after["clock"]["black_seconds"]), 2.0, "{after:#}");
    // Alice had 4 days (3 + 1) after her move: her deadline.
    assert_eq!(deadline_in_days(&after, clock.now()), 4.0);

    // Alice moves from her vacation, a day after it began: that day is not
    // spent either (4 days, none spent, 1 added).
    post("/api/v1/account/vacation")
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    clock.advance(DAY);
    let after = play(&app, &game, &alice, "Nf3").await;
    assert_eq!(days(&after["clock"]["white_seconds"]), 5.0, "{after:#}");
    delete("/api/v1/account/vacation")
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    // Bob's 2 days.
    assert_eq!(deadline_in_days(&after, clock.now()), 2.0);

    clock.advance(2 * DAY + SECOND);
    assert_eq!(sweep_once(&state).await.unwrap(), 1);
    let read = read_game(&app, &game, &bob).await;
    assert_eq!(read["termination"], "timeout");
    assert_eq!(read["result"], "1-0");
}

async fn a_challenge_names_days_per_move_or_a_clock(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    sign_up_for_a_year(&app, "bob").await;
    let refused = |body: Value, code: &'static str| {
        let app = &app;
        let alice = alice.clone();
        async move {
            post("/api/v1/challenges")
                .token(&alice)
                .json(body)
                .send(app)
                .await
                .assert_problem(422, code);
        }
    };
    let control = json!({"kind": "control", "moves": 10, "days": 50});
    refused(json!({"rules": "standard"}), "invalid_clock").await;
    refused(
        json!({"rules": "standard", "days_per_move": 3, "clock": control}),
        "invalid_clock",
    )
    .await;
    refused(
        json!({"rules": "standard", "clock": {"kind": "control", "moves": 0, "days": 50}}),
        "invalid_clock",
    )
    .await;
    refused(
        json!({"rules": "standard", "clock": {"kind": "bank", "initial_days": 7, "increment_days": 1, "max_days": 5}}),
        "invalid_clock",
    )
    .await;
    refused(
        json!({"rules": "standard", "clock": {"kind": "hourglass", "days": 5}}),
        "invalid_body",
    )
    .await;
    refused(
        json!({"rules": "standard", "days_per_move": 4}),
        "invalid_days_per_move",
    )
    .await;
}

/// Sixteen pawn moves a side, none repeating a position.
const PAWN_MARCH: [&str; 32] = [
    "a3", "a6", "b3", "b6", "c3", "c6", "d3", "d6", "e3", "e6", "f3", "f6", "g3", "g6", "h3", "h6",
    "a4", "a5", "b4", "b5", "c4", "c5", "d4", "d5", "e4", "e5", "f4", "f5", "g4", "g5", "h4", "h5",
];

// Each clock kind over 32 plies, each ply after its own number of hours,
// against a model of its rule: both sides' time and the deadline after
// every move.
async fn both_clocks_across_thirty_two_plies(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let hours = |ply: usize| ((ply * 7) % 30 + 1) as i64;
    // 3 moves in 5 days: 5 days more after every third move of a side.
    let control = json!({"kind": "control", "moves": 3, "days": 5});
    // 2 days, 1 added a move, at most 3 held.
    let bank = json!({"kind": "bank", "initial_days": 2, "increment_days": 1, "max_days": 3});
    for (spec, rule) in [
        (
            control,
            (|left: i64, made: usize| {
                if made.is_multiple_of(3) {
                    left + 5 * 24
                } else {
                    left
                }
            }) as fn(i64, usize) -> i64,
        ),
        (bank, |left, _| (left + 24).min(3 * 24)),
    ] {
        let game = clocked_game(&app, &alice, &bob, spec.clone()).await;
        let start_hours = if spec["kind"] == "control" {
            5 * 24
        } else {
            2 * 24
        };
        // Each side's bank, in hours.
        let mut banks = [start_hours, start_hours];
        for (ply, san) in PAWN_MARCH.iter().enumerate() {
            let side = ply % 2;
            let token = if side == 0 { &alice } else { &bob };
            clock.advance(hours(ply) * HOUR);
            let after = play(&app, &game, token, san).await;
            banks[side] = rule(banks[side] - hours(ply), ply / 2 + 1);
            let seconds = |hours: i64| json!(hours * 3600);
            assert_eq!(
                after["clock"]["white_seconds"],
                seconds(banks[0]),
                "{spec} ply {}: {after:#}",
                ply + 1
            );
            assert_eq!(
                after["clock"]["black_seconds"],
                seconds(banks[1]),
                "{spec} ply {}",
                ply + 1
            );
            let next = banks[1 - side];
            assert_eq!(deadline_in_days(&after, clock.now()), next as f64 / 24.0);
        }
    }
}
