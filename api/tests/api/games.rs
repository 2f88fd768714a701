//! Reading games: the ETag and `If-None-Match`, and the paged list with
//! "my turn" at a glance.

use kingpost_api::clock::MINUTE;
use serde_json::json;

use crate::{
    on_both_databases,
    support::{Db, clock, get, init, play_all, sign_up, start_standard_game, state},
};

on_both_databases!(etag_and_not_modified, listing_and_paging);

async fn etag_and_not_modified(db: Db) {
    let app = init(state(&db, clock())).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let first = get(&path).token(&alice).send(&app).await;
    let etag = first
        .headers
        .get("etag")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let again = get(&path)
        .token(&alice)
        .header("If-None-Match", etag.clone())
        .send(&app)
        .await;
    assert_eq!(again.status.as_u16(), 304);
    assert_eq!(again.body, serde_json::Value::Null);

    play_all(&app, &first.body, &alice, &bob, &["e4"]).await;
    let changed = get(&path)
        .token(&alice)
        .header("If-None-Match", etag.clone())
        .send(&app)
        .await;
    assert_eq!(changed.status.as_u16(), 200);
    let new_etag = changed.headers.get("etag").unwrap().to_str().unwrap();
    assert_ne!(new_etag, etag, "the ETag changes with every ply");
    assert_eq!(changed.body["ply"], 1);
}

async fn listing_and_paging(db: Db) {
    let clock = clock();
    let app = init(state(&db, clock.clone())).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    // Five games a minute apart: Alice (White) to move in all of them.
    let mut ids = Vec::new();
    for _ in 0..5 {
        let game = start_standard_game(&app, &alice, &bob, "bob").await;
        ids.push(game["id"].as_str().unwrap().to_owned());
        clock.advance(MINUTE);
    }
    // Alice moves in the second game: Bob's turn there now.
    let second = get(format!("/api/v1/games/{}", ids[1]))
        .token(&alice)
        .send(&app)
        .await;
    play_all(&app, &second.body, &alice, &bob, &["e4"]).await;

    let mine = get("/api/v1/games?my_turn=true")
        .token(&alice)
        .send(&app)
        .await;
    let mine = mine.assert_status(200);
    assert_eq!(mine["my_turn_count"], 4);
    let listed: Vec<&str> = mine["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        [&ids[0], &ids[2], &ids[3], &ids[4]],
        "soonest deadline first"
    );
    assert!(
        mine["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["my_turn"] == true)
    );

    let bobs = get("/api/v1/games?my_turn=true")
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(bobs.body["my_turn_count"], 1);
    assert_eq!(bobs.body["games"][0]["id"], ids[1].as_str());

    // All five, two at a time; the second game's deadline is now the latest.
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/games?limit=2&cursor={c}"),
            None => "/api/v1/games?limit=2".to_owned(),
        };
        let page = get(path).token(&alice).send(&app).await;
        let page = page.assert_status(200).clone();
        paged.extend(
            page["games"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_str().unwrap().to_owned()),
        );
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(
        paged,
        [&ids[0], &ids[2], &ids[3], &ids[4], &ids[1]].map(String::clone)
    );

    let finished = get("/api/v1/games?status=finished")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(finished.body["games"], json!([]));
    get("/api/v1/games?status=finished&my_turn=true")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
}
