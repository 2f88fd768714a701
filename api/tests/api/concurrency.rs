//! Races and schema changes: two requests for one ply, on one instance or
//! two sharing a database, apply exactly one move; the migrations revert.

use diesel::prelude::*;
use futures_util::future::join_all;
use std::sync::Arc;

use kingpost_api::{
    clock::{Clock, ManualClock},
    db::{self, schema::game_positions},
    domain::game::moves::played_moves,
    models::{
        game::{self as rows, IndexChange},
        position_index::{NO_MOVE, PositionRow},
    },
};
use kingpost_core::{Position, Rules, packed};
use serde_json::json;

use crate::{
    on_both_databases,
    support::{Call, Db, TestApp, clock, get, play_all, post, sign_up, start_standard_game},
};

on_both_databases!(
    racing_moves_apply_once,
    racing_moves_on_two_instances,
    conditionals_racing_the_move_they_answer,
    racing_draw_offers_on_two_instances,
    a_stale_change_stores_no_moves,
    migrations_revert_and_reapply
);

async fn racing_moves_apply_once(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let id = game["id"].as_str().unwrap();
    for round in 0..5 {
        let path = format!("/api/v1/games/{id}/moves");
        // Four different moves for the same ply, sent at once.
        // Legal whichever move of the earlier rounds won.
        let (token, moves) = match round {
            0 => (&alice, ["a3", "b3", "c3", "d3"]),
            1 => (&bob, ["a6", "b6", "c6", "d6"]),
            2 => (&alice, ["e3", "f3", "g3", "h3"]),
            3 => (&bob, ["e6", "f6", "g6", "h6"]),
            _ => (&alice, ["a4", "b4", "c4", "d4"]),
        };
        let requests = moves.map(|m| {
            post(&path)
                .token(token)
                .json(json!({"move": m, "ply": round}))
                .send(&app)
        });
        let answers = join_all(requests).await;
        let applied = answers.iter().filter(|a| a.status.as_u16() == 200).count();
        assert_eq!(applied, 1, "{answers:#?}");
        for answer in answers.iter().filter(|a| a.status.as_u16() != 200) {
            answer.assert_problem(409, "stale_ply");
        }
    }
    let game = get(format!("/api/v1/games/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(game.body["ply"], 5);
    assert_eq!(game.body["moves"].as_array().unwrap().len(), 5);
}

async fn racing_moves_on_two_instances(db: Db) {
    let clock = clock();
    let one = TestApp::on(&db).clock(clock.clone()).start().await;
    let two = TestApp::on(&db).clock(clock).start().await;
    let alice = sign_up(&one, "alice").await;
    let bob = sign_up(&two, "bob").await;
    let game = start_standard_game(&one, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}/moves", game["id"].as_str().unwrap());
    let (a, b) = futures_util::future::join(
        post(&path)
            .token(&alice)
            .json(json!({"move": "e4", "ply": 0}))
            .send(&one),
        post(&path)
            .token(&alice)
            .json(json!({"move": "d4", "ply": 0}))
            .send(&two),
    )
    .await;
    let statuses = [a.status.as_u16(), b.status.as_u16()];
    assert!(
        statuses.contains(&200) && statuses.contains(&409),
        "{statuses:?}"
    );
    let seen_by_two = get(format!("/api/v1/games/{}", game["id"].as_str().unwrap()))
        .token(&bob)
        .send(&two)
        .await;
    assert_eq!(seen_by_two.body["moves"].as_array().unwrap().len(), 1);
}

// Conditional moves are lines for the position they were stored at: stored
// while the opponent's move for that position arrives, either the line is
// refused (the turn has passed) or that move meets it. Never does a line
// outlive its position and play a move later that the player chose for
// another one. On one instance and across two, since Postgres lets the two
// requests run at once.
async fn conditionals_racing_the_move_they_answer(db: Db) {
    let clock = clock();
    let one = TestApp::on(&db).clock(clock.clone()).start().await;
    let two = TestApp::on(&db).clock(clock).start().await;
    let alice = sign_up(&one, "alice").await;
    let bob = sign_up(&one, "bob").await;
    for round in 0..24 {
        let game = start_standard_game(&one, &alice, &bob, "bob").await;
        let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
        play_all(&one, &game, &alice, &bob, &["e4"]).await;
        let other = if round % 2 == 0 { &one } else { &two };
        let (stored, moved) = futures_util::future::join(
            Call::new(actix_web::http::Method::PUT, format!("{path}/conditionals"))
                .token(&alice)
                .json(json!({"lines": [["g8f6", "b1c3"]]}))
                .send(&one),
            post(format!("{path}/moves"))
                .token(&bob)
                .json(json!({"move": "e7e5", "ply": 1}))
                .send(other),
        )
        .await;
        moved.assert_status(200);
        if stored.status.as_u16() != 200 {
            stored.assert_problem(409, "not_opponents_turn");
        }
        let left = get(format!("{path}/conditionals"))
            .token(&alice)
            .send(&one)
            .await;
        assert_eq!(
            left.assert_status(200)["lines"],
            json!([]),
            "round {round}: a line for ply 1 outlived it"
        );
        let after = play_all(&one, &game, &alice, &bob, &["Nf3", "Nf6"]).await;
        assert_eq!(after["ply"], 4, "round {round}: no move played for Alice");
    }
}

// Two draw offers, or an offer and the opponent's move, sent at once to two
// instances: each is carried out on the game as the other left it, and
// never refused with a ply the game is not at.
async fn racing_draw_offers_on_two_instances(db: Db) {
    // Instances' clocks differ, as real ones do: a change by one is seen
    // by the other as a change.
    let clock = clock();
    let later = Arc::new(ManualClock::new(clock.now() + 1));
    let one = TestApp::on(&db).clock(clock).start().await;
    let two = TestApp::on(&db).clock(later).start().await;
    let alice = sign_up(&one, "alice").await;
    let bob = sign_up(&one, "bob").await;
    let mut paths = Vec::new();
    for _ in 0..16 {
        let game = start_standard_game(&one, &alice, &bob, "bob").await;
        play_all(&one, &game, &alice, &bob, &["e4"]).await;
        paths.push(format!("/api/v1/games/{}", game["id"].as_str().unwrap()));
    }
    // Every race at once, so that they overlap as a busy server's do.
    let races = paths.iter().enumerate().map(|(round, path)| {
        let offer = |app| post(format!("{path}/draw-offer")).token(&alice).send(app);
        let second = if round % 2 == 0 {
            offer(&two)
        } else {
            post(format!("{path}/moves"))
                .token(&bob)
                .json(json!({"move": "e5", "ply": 1}))
                .send(&two)
        };
        futures_util::future::join(offer(&one), second)
    });
    for (round, (first, second)) in join_all(races).await.into_iter().enumerate() {
        assert_eq!(
            (first.status.as_u16(), second.status.as_u16()),
            (200, 200),
            "round {round}: {first:?} {second:?}"
        );
    }
}

// The guard of a change (the ply and change time it read) holds for the
// moves it plays as for the game: a change made from a stale read stores
// neither, and fails cleanly (on Postgres the game's update and its moves
// are one statement).
async fn a_stale_change_stores_no_moves(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    play_all(&app, &game, &alice, &bob, &["e4"]).await;
    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut conn = pool.get().unwrap();
    let read = rows::find(&mut conn, &game["id"].as_str().unwrap().into())
        .unwrap()
        .unwrap();
    let after_e4 = Position::from_fen(Rules::Standard, &read.current_fen).unwrap();
    let reply = |uci: &str| {
        let mut row = read.clone();
        row.ply = 2;
        row.updated_at = read.updated_at + 1;
        let m = after_e4.parse_move(uci).unwrap();
        let number = packed::push(&mut row.moves, &after_e4.legal_moves(), &m).unwrap();
        let mut after = after_e4.clone();
        after.play_unchecked(m);
        let left = after_e4.repetition_key() as i64;
        let position = |position_key, next, ply| PositionRow {
            position_key,
            game_id: row.id.clone(),
            next,
            ply,
        };
        let moved = IndexChange {
            left,
            rows: vec![
                position(left, number as i16, 1),
                position(after.repetition_key() as i64, NO_MOVE, 2),
            ],
        };
        (row, moved)
    };
    let (ply, at) = (read.ply, read.updated_at);
    let (first, e5) = reply("e7e5");
    assert!(rows::advance_playing(&mut conn, &first, ply, at, Some(&e5)).unwrap());
    let (stale, d5) = reply("d7d5");
    assert!(!rows::advance_playing(&mut conn, &stale, ply, at, Some(&d5)).unwrap());
    let conn: &mut db::DbConnection = &mut conn;
    let stored = rows::find(conn, &read.id).unwrap().unwrap();
    let stored: Vec<String> = played_moves(&stored)
        .unwrap()
        .into_iter()
        .map(|m| m.san)
        .collect();
    assert_eq!(stored, ["e4", "e5"]);
    // The index holds the start and the two moves' positions, the last
    // with no move: nothing of the stale change's.
    let indexed: i64 = game_positions::table
        .filter(game_positions::game_id.eq(&read.id))
        .count()
        .get_result(conn)
        .unwrap();
    assert_eq!(indexed, 3);
}

async fn migrations_revert_and_reapply(db: Db) {
    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut conn = pool.get().unwrap();
    assert!(db::revert_all_migrations(&mut conn).unwrap() >= 1);
    assert!(db::run_migrations(&mut conn).unwrap() >= 1);
    assert_eq!(db::run_migrations(&mut conn).unwrap(), 0);
}
