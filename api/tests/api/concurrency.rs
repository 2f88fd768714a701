//! Races and schema changes: two requests for one ply, on one instance or
//! two sharing a database, apply exactly one move; the migrations revert.

use futures_util::future::join_all;
use kingpost_api::db;
use serde_json::json;

use crate::{
    on_both_databases,
    support::{Db, clock, get, init, post, sign_up, start_standard_game, state},
};

on_both_databases!(
    racing_moves_apply_once,
    racing_moves_on_two_instances,
    migrations_revert_and_reapply
);

async fn racing_moves_apply_once(db: Db) {
    let app = init(state(&db, clock())).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
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
    let one = init(state(&db, clock.clone())).await;
    let two = init(state(&db, clock)).await;
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

async fn migrations_revert_and_reapply(db: Db) {
    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut conn = pool.get().unwrap();
    assert!(db::revert_all_migrations(&mut conn).unwrap() >= 1);
    assert!(db::run_migrations(&mut conn).unwrap() >= 1);
    assert_eq!(db::run_migrations(&mut conn).unwrap(), 0);
}
