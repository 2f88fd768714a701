//! What one account may hold at once (README, limits): collections, live
//! personal tokens, open challenges and seeks, tournaments organised. Each
//! cap refuses one more with its own code and changes nothing; what is
//! addressed to an account, which others decide, is paged instead.

use serde_json::{Value, json};

use kingpost_api::domain::{
    challenge::{MAX_OPEN_CHALLENGES, MAX_OPEN_SEEKS},
    collections, tokens,
    tournament::lifecycle::MOST_ORGANISED,
};

use crate::support::{Db, START_TIME, TestApp, clock, get, post, sign_up_for_a_year};

crate::on_both_databases!(
    collections_and_tokens_are_capped,
    open_challenges_and_seeks_are_capped_and_incoming_ones_paged,
    tournaments_organised_are_capped
);

async fn collections_and_tokens_are_capped(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    for n in 0..collections::MAX_PER_ACCOUNT {
        post("/api/v1/collections")
            .token(&alice)
            .json(json!({"name": format!("set {n}")}))
            .send(&app)
            .await
            .assert_status(201);
    }
    post("/api/v1/collections")
        .token(&alice)
        .json(json!({"name": "one more"}))
        .send(&app)
        .await
        .assert_problem(422, "too_many_collections");
    // An import into a new collection is refused whole; into one of hers it
    // is filed.
    post("/api/v1/imports?collection=another")
        .token(&alice)
        .raw("application/x-chess-pgn", "1. e4 *\n")
        .send(&app)
        .await
        .assert_problem(422, "too_many_collections");
    post("/api/v1/imports?collection=set%200")
        .token(&alice)
        .raw("application/x-chess-pgn", "1. e4 *\n")
        .send(&app)
        .await
        .assert_status(200);
    let listed = get("/api/v1/collections").token(&alice).send(&app).await;
    let count = listed.assert_status(200)["collections"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(count as i64, collections::MAX_PER_ACCOUNT);

    let token = |name: String| {
        post("/api/v1/tokens")
            .token(&alice)
            .json(json!({"name": name, "scopes": ["game:read"]}))
    };
    let mut ids = Vec::new();
    for n in 0..tokens::MAX_PERSONAL {
        let made = token(format!("bot {n}")).send(&app).await;
        ids.push(made.assert_status(201)["id"].as_str().unwrap().to_owned());
    }
    token("one more".to_owned())
        .send(&app)
        .await
        .assert_problem(422, "too_many_tokens");
    // A revoked token makes room.
    crate::support::delete(format!("/api/v1/tokens/{}", ids[0]))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    token("in its place".to_owned())
        .send(&app)
        .await
        .assert_status(201);
}

async fn open_challenges_and_seeks_are_capped_and_incoming_ones_paged(db: Db) {
    use kingpost_api::clock::SECOND;

    let clock = clock();
    let (app, [alice, bob]) = TestApp::on(&db)
        .clock(clock.clone())
        .with_users(["alice", "bob"])
        .await;
    fn challenge<'a>(token: &'a str, opponent: Option<&str>) -> crate::support::Call<'a> {
        let mut body = json!({"rules": "standard", "days_per_move": 3});
        if let Some(opponent) = opponent {
            body["opponent"] = json!(opponent);
        }
        post("/api/v1/challenges").token(token).json(body)
    }
    let mut sent = Vec::new();
    for _ in 0..MAX_OPEN_CHALLENGES {
        clock.advance(SECOND);
        let made = challenge(&alice, Some("bob")).send(&app).await;
        sent.push(made.assert_status(201)["id"].as_str().unwrap().to_owned());
    }
    challenge(&alice, Some("bob"))
        .send(&app)
        .await
        .assert_problem(422, "too_many_challenges");
    for _ in 0..MAX_OPEN_SEEKS {
        challenge(&alice, None).send(&app).await.assert_status(201);
    }
    challenge(&alice, None)
        .send(&app)
        .await
        .assert_problem(422, "too_many_challenges");
    // A declined challenge is no longer open: room for one more.
    post(format!("/api/v1/challenges/{}/decline", sent[0]))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    clock.advance(SECOND);
    let last = challenge(&alice, Some("bob")).send(&app).await;
    sent.push(last.assert_status(201)["id"].as_str().unwrap().to_owned());

    // Bob's incoming challenges, many challengers' worth: paged, newest
    // first, each once.
    let list = get("/api/v1/challenges").token(&bob).send(&app).await;
    let listed = list.assert_status(200)["incoming"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(listed, 50);
    let mut seen: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(cursor) => format!("/api/v1/challenges/incoming?limit=20&cursor={cursor}"),
            None => "/api/v1/challenges/incoming?limit=20".to_owned(),
        };
        let page = get(path).token(&bob).send(&app).await;
        let page = page.assert_status(200).clone();
        let ids = page["challenges"].as_array().unwrap();
        assert!(ids.len() <= 20);
        seen.extend(ids.iter().map(|c| c["id"].as_str().unwrap().to_owned()));
        match &page["next_cursor"] {
            Value::String(next) => cursor = Some(next.clone()),
            _ => break,
        }
    }
    let mut expected: Vec<String> = sent[1..].to_vec();
    expected.sort();
    let mut got = seen.clone();
    got.sort();
    assert_eq!(got, expected, "every open challenge to bob once");
    assert_eq!(seen.first(), sent.last(), "newest first");
    get("/api/v1/challenges/incoming?cursor=nonsense")
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(422, "invalid_cursor");
}

async fn tournaments_organised_are_capped(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let deadline = kingpost_api::clock::rfc3339(START_TIME + 7 * kingpost_api::clock::DAY);
    let organise = || {
        post("/api/v1/tournaments").token(&alice).json(json!({
            "name": "Winter", "rules": "standard", "days_per_move": 3, "capacity": 4,
            "signup_deadline": deadline,
        }))
    };
    for _ in 0..MOST_ORGANISED {
        organise().send(&app).await.assert_status(201);
    }
    organise()
        .send(&app)
        .await
        .assert_problem(422, "too_many_tournaments");
}
