//! Deleting an account (README, accounts): its games stay with their
//! opponents under the name `[deleted]`, and nothing else of it is left.

use diesel::prelude::*;
use kingpost_api::{
    clock::Clock,
    db::{DbConnection, schema},
    domain::account_deletion,
    server::sweep_once,
};
use serde_json::{Value, json};

use crate::{
    mail::{NOWHERE, set_email},
    messages::told,
    on_both_databases,
    support::{
        Call, Db, TestApp, clock, delete, get, init, path_of, post, sign_in, sign_up,
        start_standard_game,
    },
};

on_both_databases!(
    a_deleted_account_leaves_its_games_and_nothing_else,
    a_deletion_interrupted_is_finished_by_the_sweep
);

const DELETED: &str = "[deleted]";

fn delete_account<'a>(token: &'a str, password: &str) -> Call<'a> {
    delete("/api/v1/account")
        .token(token)
        .json(json!({"password": password}))
}

/// The rows left that name the account, table by table.
fn rows_left(conn: &mut DbConnection, id: &str) -> Vec<(&'static str, i64)> {
    use schema::*;
    let mut left = vec![
        (
            "tokens",
            tokens::table
                .filter(tokens::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "refresh_tokens",
            refresh_tokens::table
                .filter(refresh_tokens::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "webhooks",
            webhooks::table
                .filter(webhooks::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "push_subscriptions",
            push_subscriptions::table
                .filter(push_subscriptions::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "account_emails",
            account_emails::table
                .filter(account_emails::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "mail_outbox",
            mail_outbox::table
                .filter(mail_outbox::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "notification_settings",
            notification_settings::table
                .filter(notification_settings::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "mutes",
            mutes::table
                .filter(mutes::account_id.eq(id).or(mutes::muted_id.eq(id)))
                .count()
                .get_result(conn),
        ),
        (
            "annotations",
            annotations::table
                .filter(annotations::author_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "conditionals",
            conditionals::table
                .filter(conditionals::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "collections",
            collections::table
                .filter(collections::owner_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "ratings",
            ratings::table
                .filter(ratings::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "events",
            events::table
                .filter(events::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "team_members",
            team_members::table
                .filter(team_members::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "team_invites",
            team_invites::table
                .filter(team_invites::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
        (
            "account_deletions",
            account_deletions::table
                .filter(account_deletions::account_id.eq(id))
                .count()
                .get_result(conn),
        ),
    ]
    .into_iter()
    .map(|(table, n)| (table, n.unwrap()))
    .collect::<Vec<_>>();
    left.retain(|&(_, n)| n > 0);
    left
}

async fn id_of<B: actix_web::body::MessageBody>(
    app: &impl crate::support::Served<B>,
    token: &str,
) -> String {
    let account = get("/api/v1/account").token(token).send(app).await;
    account.assert_status(200)["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

// README, accounts: deleting an account ends its games under way (aborted
// before both sides moved, resigned after), leaves its tournaments, closes
// its challenges, and deletes what was its own; its games, with their
// messages, stay with the opponents under the name `[deleted]`, and the
// username is free again.
async fn a_deleted_account_leaves_its_games_and_nothing_else(db: Db) {
    let state = TestApp::on(&db).mail(NOWHERE).push().state();
    let app = init(state.clone()).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let carol = sign_up(&app, "carol").await;
    let alice_id = id_of(&app, &alice).await;

    // A game both sides moved in, with a message; one nobody moved in; a
    // rated one finished.
    let played = path_of(&start_standard_game(&app, &alice, &bob, "bob").await);
    for (token, ply, text) in [(&alice, 0, "e4"), (&bob, 1, "e5")] {
        let mut body = json!({"move": text, "ply": ply});
        if ply == 0 {
            body["message"] = json!("Good luck!");
        }
        post(format!("{played}/moves"))
            .token(token)
            .json(body)
            .send(&app)
            .await
            .assert_status(200);
    }
    let fresh = path_of(&start_standard_game(&app, &carol, &alice, "alice").await);
    let rated = post("/api/v1/challenges")
        .token(&bob)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "alice", "color": "white", "rated": true}))
        .send(&app)
        .await;
    let rated = rated.assert_status(201)["id"].as_str().unwrap().to_owned();
    let over = post(format!("/api/v1/challenges/{rated}/accept"))
        .token(&alice)
        .send(&app)
        .await;
    let over = path_of(over.assert_status(201));
    // Rated games move ratings once both sides have moved.
    for (token, ply, text) in [(&bob, 0, "d4"), (&alice, 1, "d5")] {
        post(format!("{over}/moves"))
            .token(token)
            .json(json!({"move": text, "ply": ply}))
            .send(&app)
            .await
            .assert_status(200);
    }
    post(format!("{over}/resign"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);

    // Challenges both ways, a tournament, a public collection, and the
    // account's own settings, subscriptions, hooks, notes and mutes.
    let seek = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3}))
        .send(&app)
        .await;
    let seek = seek.assert_status(201)["id"].as_str().unwrap().to_owned();
    let to_alice = post("/api/v1/challenges")
        .token(&bob)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "alice"}))
        .send(&app)
        .await;
    let to_alice = to_alice.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let tournament = post("/api/v1/tournaments")
        .token(&carol)
        .json(
            json!({"name": "Spring", "rules": "standard", "days_per_move": 3, "capacity": 4,
                     "signup_deadline": "2027-01-01T00:00:00Z"}),
        )
        .send(&app)
        .await;
    let tournament = tournament.assert_status(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    post(format!("/api/v1/tournaments/{tournament}/join"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    // A team she captains with Bob in it (Bob is its captain after her),
    // and an invitation to Carol's.
    let team = post("/api/v1/teams")
        .token(&alice)
        .json(json!({"name": "Alice's Knights"}))
        .send(&app)
        .await;
    let team = team.assert_status(201)["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/teams/{team}/join"))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);
    let carols = post("/api/v1/teams")
        .token(&carol)
        .json(json!({"name": "Carol's Rooks", "open": false}))
        .send(&app)
        .await;
    let carols = carols.assert_status(201)["id"].as_str().unwrap().to_owned();
    post(format!("/api/v1/teams/{carols}/invites"))
        .token(&carol)
        .json(json!({"username": "alice"}))
        .send(&app)
        .await
        .assert_status(204);
    let imported = post("/api/v1/imports?collection=Openings")
        .token(&alice)
        .raw(
            "application/x-chess-pgn",
            "[White \"Anna\"]\n[Black \"Zed\"]\n\n1. d4 d5 *\n",
        )
        .send(&app)
        .await;
    let collection = imported.assert_status(200)["collection_id"]
        .as_str()
        .unwrap()
        .to_owned();
    Call::new(
        actix_web::http::Method::PATCH,
        format!("/api/v1/collections/{collection}"),
    )
    .token(&alice)
    .json(json!({"visibility": "public"}))
    .send(&app)
    .await
    .assert_status(200);
    set_email(&alice, "alice@example.org")
        .send(&app)
        .await
        .assert_status(202);
    Call::new(
        actix_web::http::Method::PUT,
        "/api/v1/account/notifications",
    )
    .token(&alice)
    .json(json!({"email_delivery": "digest"}))
    .send(&app)
    .await
    .assert_status(200);
    post("/api/v1/push-subscriptions")
        .token(&alice)
        .json(crate::push::subscription("https://push.example.org/alice"))
        .send(&app)
        .await
        .assert_status(201);
    post("/api/v1/webhooks")
        .token(&alice)
        .json(json!({"url": "http://127.0.0.1:9/hook", "secret": "a secret of sixteen or more", "events": ["opponent_moved"]}))
        .send(&app)
        .await
        .assert_status(201);
    Call::new(
        actix_web::http::Method::PUT,
        format!("{over}/annotations/1"),
    )
    .token(&alice)
    .json(json!({"comment": "my plan"}))
    .send(&app)
    .await
    .assert_status(200);
    Call::new(actix_web::http::Method::PUT, "/api/v1/account/mutes/carol")
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    Call::new(actix_web::http::Method::PUT, "/api/v1/account/mutes/alice")
        .token(&bob)
        .send(&app)
        .await
        .assert_status(204);
    let personal = post("/api/v1/tokens")
        .token(&alice)
        .json(json!({"name": "bot", "scopes": ["game:read", "game:play"]}))
        .send(&app)
        .await;
    let personal = personal.assert_status(201)["token"]
        .as_str()
        .unwrap()
        .to_owned();

    // A wrong password, or a personal token, changes nothing.
    delete_account(&alice, "not my password")
        .send(&app)
        .await
        .assert_problem(422, "wrong_password");
    delete_account(&personal, crate::support::PASSWORD)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    get("/api/v1/account")
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    assert_eq!(
        get(played.clone())
            .token(&bob)
            .send(&app)
            .await
            .assert_status(200)["status"],
        "started"
    );

    delete_account(&alice, crate::support::PASSWORD)
        .send(&app)
        .await
        .assert_status(204);

    // Its credentials are gone, and its name with them.
    for token in [&alice, &personal] {
        get("/api/v1/account")
            .token(token)
            .send(&app)
            .await
            .assert_problem(401, "unauthorized");
    }
    post("/api/v1/auth/token")
        .json(json!({"grant_type": "password", "username": "alice", "password": crate::support::PASSWORD}))
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
    get("/api/v1/users/alice")
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get("/api/v1/users/alice/collections")
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get(format!("/api/v1/collections/{collection}"))
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    // Its games stay with the opponents, under the deleted name.
    let view = |path: String, token: String| {
        let app = &app;
        async move {
            get(path)
                .token(&token)
                .send(app)
                .await
                .assert_status(200)
                .clone()
        }
    };
    let resigned = view(played.clone(), bob.clone()).await;
    assert_eq!(
        (
            &resigned["status"],
            &resigned["result"],
            &resigned["termination"]
        ),
        (&json!("finished"), &json!("0-1"), &json!("resignation"))
    );
    assert_eq!(resigned["white"]["username"], DELETED);
    let aborted = view(fresh.clone(), carol.clone()).await;
    assert_eq!(aborted["status"], "aborted");
    assert_eq!(aborted["black"]["username"], DELETED);
    let finished = view(over.clone(), bob.clone()).await;
    assert_eq!(
        (&finished["result"], &finished["black"]["username"]),
        (&json!("0-1"), &json!(DELETED))
    );
    let pgn = get(format!("{over}/pgn")).send(&app).await;
    let pgn = pgn.body.as_str().unwrap();
    assert!(pgn.contains("[Black \"[deleted]\"]"), "{pgn}");
    assert!(!pgn.contains("alice"), "{pgn}");
    let messages = get(format!("{played}/messages"))
        .token(&bob)
        .send(&app)
        .await;
    let messages = messages.assert_status(200)["messages"].clone();
    assert_eq!(
        (&messages[0]["from"], &messages[0]["text"]),
        (&json!(DELETED), &json!("Good luck!"))
    );

    // A search by its old name finds none of its games.
    let by_name = get("/api/v1/search/games?player=alice")
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(by_name.assert_status(200)["games"], json!([]));

    // Its challenges are closed (the one it was sent, declined), its place
    // in the tournament given up.
    let declined: Vec<Value> = told(&app, &bob)
        .await
        .into_iter()
        .filter(|e| e["type"] == "challenge_declined")
        .collect();
    assert_eq!(declined.len(), 1);
    assert_eq!(declined[0]["data"]["challenge_id"], to_alice.as_str());
    let carols = get("/api/v1/challenges").token(&carol).send(&app).await;
    let open = carols.assert_status(200)["open"]
        .as_array()
        .unwrap()
        .clone();
    assert!(open.iter().all(|c| c["id"] != seek.as_str()), "{open:?}");
    let left_team = get(format!("/api/v1/teams/{team}"))
        .send(&app)
        .await
        .assert_status(200)
        .clone();
    assert_eq!(
        (
            &left_team["member_count"],
            &left_team["members"][0]["player"]["username"],
            &left_team["members"][0]["captain"]
        ),
        (&json!(1), &json!("bob"), &json!(true)),
        "Bob, left alone, captains the team"
    );
    let entered = get(format!("/api/v1/tournaments/{tournament}"))
        .send(&app)
        .await;
    assert_eq!(entered.assert_status(200)["players"], json!([]));

    // Nothing of it is left but its row, which its games point to.
    let mut conn = state.pool.get().unwrap();
    assert_eq!(rows_left(&mut conn, &alice_id), vec![]);
    let (name, deleted_at): (String, Option<i64>) = schema::accounts::table
        .find(&alice_id)
        .select((schema::accounts::username, schema::accounts::deleted_at))
        .first(&mut **conn)
        .unwrap();
    assert_eq!(name, DELETED);
    assert!(deleted_at.is_some());
    // The opponent's rating from the game stays.
    let bobs_id = id_of(&app, &bob).await;
    let bobs: i64 = schema::ratings::table
        .filter(schema::ratings::account_id.eq(&bobs_id))
        .count()
        .get_result(&mut **conn)
        .unwrap();
    assert_eq!(bobs, 1);

    // The name is free again, for an account that is not the old one.
    let again = sign_up(&app, "alice").await;
    assert_ne!(id_of(&app, &again).await, alice_id);
    let games = get("/api/v1/games").token(&again).send(&app).await;
    assert_eq!(games.assert_status(200)["games"], json!([]));
    sign_in(&app, "alice", crate::support::PASSWORD).await;
}

// README, accounts: a deletion the server stopped in the middle of (its
// games not all ended, its collection still there) is finished by the
// sweep, once its request could no longer be carrying it on.
async fn a_deletion_interrupted_is_finished_by_the_sweep(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let alice_id = id_of(&app, &alice).await;
    // More games than one step ends.
    let mut games = Vec::new();
    for _ in 0..25 {
        let path = path_of(&start_standard_game(&app, &alice, &bob, "bob").await);
        for (token, ply, text) in [(&alice, 0, "e4"), (&bob, 1, "e5")] {
            post(format!("{path}/moves"))
                .token(token)
                .json(json!({"move": text, "ply": ply}))
                .send(&app)
                .await
                .assert_status(200);
        }
        games.push(path);
    }
    post("/api/v1/imports")
        .token(&alice)
        .raw(
            "application/x-chess-pgn",
            "[White \"Anna\"]\n[Black \"Zed\"]\n\n1. d4 d5 *\n",
        )
        .send(&app)
        .await
        .assert_status(200);

    // The deletion's first change, and the server stops.
    let id = alice_id.clone();
    let now = clock.now();
    state
        .write(move |conn, outbox| account_deletion::delete(conn, outbox, &id.into(), now))
        .await
        .unwrap();
    assert_eq!(under_way(&app, &games, &bob).await, 25);

    // Within ten minutes the request might still be at it; then the sweep
    // takes over.
    sweep_once(&state).await.unwrap();
    assert_eq!(under_way(&app, &games, &bob).await, 25);
    clock.advance(11 * 60_000);
    sweep_once(&state).await.unwrap();
    assert_eq!(under_way(&app, &games, &bob).await, 0);
    let mut conn = state.pool.get().unwrap();
    assert_eq!(rows_left(&mut conn, &alice_id), vec![]);
}

/// How many of `games` are under way, as `token` sees them.
async fn under_way<B: actix_web::body::MessageBody>(
    app: &impl crate::support::Served<B>,
    games: &[String],
    token: &str,
) -> usize {
    let mut n = 0;
    for path in games {
        let game = get(path.clone()).token(token).send(app).await;
        if game.assert_status(200)["status"] == "started" {
            n += 1;
        }
    }
    n
}
