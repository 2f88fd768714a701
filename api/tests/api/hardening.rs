//! Abuse: rate limits with their headers, sign-in throttling, CORS and the
//! security headers.

use std::time::Duration;

use kingpost_api::budgets::{Quota, RateLimits};
use serde_json::{Value, json};

use crate::support::{Db, PASSWORD, TestApp, clock, get, init, post, sign_up};

fn tight() -> RateLimits {
    RateLimits {
        per_address: Quota::per_minute(12),
        per_account: Quota::per_minute(3),
        sign_in: Quota::per_minute(4),
        failed_sign_ins: Quota {
            requests: 2,
            window: Duration::from_secs(900),
        },
    }
}

#[actix_web::test]
async fn rate_limits_answer_429_with_retry_after() {
    let db = Db::sqlite();
    let app = TestApp::on(&db).limits(tight()).start().await;
    // Registration and sign-in share the small budget: 2 of 4 here.
    let alice = sign_up(&app, "alice").await;

    // The account's budget: 3 a minute.
    for remaining in (0..3).rev() {
        let answer = get("/api/v1/account").token(&alice).send(&app).await;
        answer.assert_status(200);
        assert_eq!(
            answer.headers.get("ratelimit-remaining").unwrap(),
            &remaining.to_string()
        );
        assert_eq!(answer.headers.get("ratelimit-limit").unwrap(), "3");
    }
    let refused = get("/api/v1/account").token(&alice).send(&app).await;
    refused.assert_problem(429, "rate_limited");
    let retry: u64 = refused
        .headers
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));

    // Sign-ins and registrations from one address: 4 a minute, 2 spent.
    let sign_in = |password: &str| {
        post("/api/v1/auth/token")
            .json(json!({"grant_type": "password", "username": "alice", "password": password}))
    };
    sign_in("wrong password 1")
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
    sign_in(PASSWORD).send(&app).await.assert_status(200);
    let spent = sign_in(PASSWORD).send(&app).await;
    spent.assert_problem(429, "rate_limited");
    assert_eq!(spent.headers.get("ratelimit-limit").unwrap(), "4");

    // The address's budget (12): 9 requests so far, 3 more, then none.
    for _ in 0..3 {
        get("/api/v1/variants").send(&app).await.assert_status(200);
    }
    let anonymous = get("/api/v1/variants").send(&app).await;
    anonymous.assert_problem(429, "rate_limited");
    assert_eq!(anonymous.headers.get("ratelimit-limit").unwrap(), "12");
}

// Failed sign-ins lock a username at the address they come from only: a
// stranger elsewhere cannot lock its owner out.
#[actix_web::test]
async fn failed_sign_ins_lock_the_username() {
    let db = Db::sqlite();
    let mut limits = RateLimits::unlimited();
    limits.failed_sign_ins = Quota {
        requests: 2,
        window: Duration::from_secs(900),
    };
    let app = TestApp::on(&db).limits(limits).start().await;
    sign_up(&app, "alice").await;
    let sign_in = |password: &str| {
        post("/api/v1/auth/token")
            .json(json!({"grant_type": "password", "username": "Alice", "password": password}))
    };
    let stranger = "203.0.113.9:40000";
    sign_in("wrong password 1")
        .from(stranger)
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
    sign_in("wrong password 2")
        .from(stranger)
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
    let locked = sign_in(PASSWORD).from(stranger).send(&app).await;
    locked.assert_problem(429, "rate_limited");
    assert!(locked.headers.get("retry-after").is_some());
    // The owner, from home, signs in all the same.
    sign_in(PASSWORD)
        .from("198.51.100.7:50000")
        .send(&app)
        .await
        .assert_status(200);
}

// Behind a trusted reverse proxy each client has its own budget, by the
// address the proxy appends to X-Forwarded-For; without the setting the
// header is never believed, so a client cannot pick a fresh address.
#[actix_web::test]
async fn budgets_follow_the_client_behind_a_trusted_proxy() {
    let db = Db::sqlite();
    let mut limits = RateLimits::unlimited();
    limits.per_address = Quota::per_minute(2);
    let proxy = "10.0.0.2:34000";
    let variants = |forwarded: &str| {
        get("/api/v1/variants")
            .from(proxy)
            .header("X-Forwarded-For", forwarded.to_owned())
    };
    let behind = TestApp::on(&db)
        .limits(limits)
        .behind_proxies(vec!["10.0.0.2".parse().unwrap()])
        .start()
        .await;
    for client in ["192.0.2.1", "192.0.2.2"] {
        for _ in 0..2 {
            // A forged left-hand entry changes nothing: the proxy's is the client.
            variants(&format!("6.6.6.6, {client}"))
                .send(&behind)
                .await
                .assert_status(200);
        }
        variants(client)
            .send(&behind)
            .await
            .assert_problem(429, "rate_limited");
    }
    let open = TestApp::on(&Db::sqlite()).limits(limits).start().await;
    variants("192.0.2.1").send(&open).await.assert_status(200);
    variants("192.0.2.2").send(&open).await.assert_status(200);
    variants("192.0.2.3")
        .send(&open)
        .await
        .assert_problem(429, "rate_limited");
}

#[actix_web::test]
async fn cors_and_security_headers() {
    let db = Db::sqlite();
    let app = TestApp::on(&db).start().await;
    let preflight =
        crate::support::Call::new(actix_web::http::Method::OPTIONS, "/api/v1/games/x/moves")
            .header("Origin", "https://client.example")
            .header("Access-Control-Request-Method", "POST")
            .header(
                "Access-Control-Request-Headers",
                "authorization, content-type, idempotency-key",
            )
            .send(&app)
            .await;
    assert_eq!(preflight.status.as_u16(), 200);
    assert_eq!(
        preflight
            .headers
            .get("access-control-allow-origin")
            .unwrap(),
        "https://client.example"
    );
    let answer = get("/api/v1/variants")
        .header("Origin", "https://client.example")
        .send(&app)
        .await;
    assert_eq!(
        answer.headers.get("access-control-allow-origin").unwrap(),
        "https://client.example"
    );
    assert!(
        answer
            .headers
            .get("access-control-expose-headers")
            .unwrap()
            .to_str()
            .unwrap()
            .contains("etag")
    );
    assert_eq!(
        answer.headers.get("x-content-type-options").unwrap(),
        "nosniff"
    );
    assert_eq!(answer.headers.get("x-frame-options").unwrap(), "DENY");
    assert_eq!(
        answer.headers.get("referrer-policy").unwrap(),
        "no-referrer"
    );
}

async fn idempotency_keys_replay_the_first_answer(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let challenge = |key: &str| {
        post("/api/v1/challenges")
            .token(&alice)
            .header("Idempotency-Key", key.to_owned())
            .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "bob", "color": "white"}))
    };
    let first = challenge("challenge-1").send(&app).await;
    first.assert_status(201);
    assert_eq!(first.headers.get("idempotent-replayed").unwrap(), "false");
    let again = challenge("challenge-1").send(&app).await;
    assert_eq!(again.status.as_u16(), 201);
    assert_eq!(again.headers.get("idempotent-replayed").unwrap(), "true");
    assert_eq!(again.body, first.body, "the first answer, byte for byte");
    let listed = get("/api/v1/challenges").token(&bob).send(&app).await;
    assert_eq!(
        listed.body["incoming"].as_array().unwrap().len(),
        1,
        "one challenge, not two"
    );

    let id = first.body["id"].as_str().unwrap();
    let game = post(format!("/api/v1/challenges/{id}/accept"))
        .token(&bob)
        .send(&app)
        .await;
    let moves = format!("/api/v1/games/{}/moves", game.body["id"].as_str().unwrap());
    let play = |key: &str, m: &str| {
        post(&moves)
            .token(&alice)
            .header("Idempotency-Key", key.to_owned())
            .json(json!({"move": m, "ply": 0}))
    };
    let moved = play("move-1", "e4").send(&app).await;
    moved.assert_status(200);
    let retried = play("move-1", "e4").send(&app).await;
    assert_eq!(
        retried.status.as_u16(),
        200,
        "a retry gets the first answer, not a stale ply"
    );
    assert_eq!(retried.body["ply"], 1);
    play("move-1", "d4")
        .send(&app)
        .await
        .assert_problem(422, "idempotency_key_reused");
    // An error is an answer too: replayed as it was.
    let stale = play("move-2", "d4").send(&app).await;
    stale.assert_problem(409, "stale_ply");
    let replayed = play("move-2", "d4").send(&app).await;
    replayed.assert_problem(409, "stale_ply");
    assert_eq!(replayed.headers.get("idempotent-replayed").unwrap(), "true");
    post(&moves)
        .token(&alice)
        .header("Idempotency-Key", "x".repeat(300))
        .json(json!({"move": "d4", "ply": 1}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_idempotency_key");
    // Keys belong to their account: Bob's "move-1" is his own.
    let bobs = post(&moves)
        .token(&bob)
        .header("Idempotency-Key", "move-1")
        .json(json!({"move": "e5", "ply": 1}))
        .send(&app)
        .await;
    assert_eq!(bobs.assert_status(200)["ply"], 2);
}

crate::on_both_databases!(
    an_abandoned_idempotency_key_frees_itself,
    idempotency_keys_replay_the_first_answer,
    a_replay_is_authorised_as_a_fresh_request,
    every_change_refused_to_the_wrong_caller
);

// Every state-changing route tried by a non-player, by the wrong player and
// without the needed scope: each refused, and the game unchanged.
async fn every_change_refused_to_the_wrong_caller(db: Db) {
    use actix_web::http::Method;

    use crate::support::{Call, sign_up_for_a_year, start_standard_game};

    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let carol_session = crate::support::sign_in(&app, "carol", PASSWORD).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let reader = post("/api/v1/tokens")
        .token(&carol_session)
        .json(json!({"name": "reader", "scopes": ["game:read"]}))
        .send(&app)
        .await
        .body["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let before = get(&path).token(&alice).send(&app).await.body;

    let routes: Vec<(Method, String, serde_json::Value)> = vec![
        (
            Method::POST,
            format!("{path}/moves"),
            json!({"move": "e4", "ply": 0}),
        ),
        (Method::POST, format!("{path}/resign"), json!(null)),
        (Method::POST, format!("{path}/abort"), json!(null)),
        (Method::POST, format!("{path}/draw-offer"), json!(null)),
        (
            Method::POST,
            format!("{path}/draw-offer/accept"),
            json!(null),
        ),
        (
            Method::POST,
            format!("{path}/draw-offer/decline"),
            json!(null),
        ),
        (Method::DELETE, format!("{path}/draw-offer"), json!(null)),
        (Method::POST, format!("{path}/claim-draw"), json!(null)),
        (
            Method::PUT,
            format!("{path}/conditionals"),
            json!({"lines": [["e5", "Nf3"]]}),
        ),
        (Method::DELETE, format!("{path}/conditionals"), json!(null)),
    ];
    fn send<'a>(
        method: &Method,
        route: &str,
        body: &serde_json::Value,
        token: &'a str,
    ) -> Call<'a> {
        let call = Call::new(method.clone(), route.to_owned()).token(token);
        if body.is_null() {
            call
        } else {
            call.json(body.clone())
        }
    }
    for (method, route, body) in &routes {
        let outsider = send(method, route, body, &carol).send(&app).await;
        outsider.assert_problem(403, "not_a_player");
        let scopeless = send(method, route, body, &reader).send(&app).await;
        scopeless.assert_problem(403, "insufficient_scope");
    }
    // The wrong player: Black tries White's move and White's claim.
    send(&Method::POST, &routes[0].1, &routes[0].2, &bob)
        .send(&app)
        .await
        .assert_problem(403, "not_your_turn");
    send(&Method::POST, &routes[7].1, &json!(null), &bob)
        .send(&app)
        .await
        .assert_problem(403, "not_your_turn");
    assert_eq!(
        get(&path).token(&alice).send(&app).await.body,
        before,
        "nothing changed"
    );

    // Challenges: the scope, and the accounts they concern.
    let challenge = post("/api/v1/challenges")
        .token(&alice)
        .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "bob"}))
        .send(&app)
        .await;
    let id = challenge.body["id"].as_str().unwrap().to_owned();
    for (method, route) in [
        (Method::POST, format!("/api/v1/challenges/{id}/accept")),
        (Method::POST, format!("/api/v1/challenges/{id}/decline")),
        (Method::DELETE, format!("/api/v1/challenges/{id}")),
    ] {
        Call::new(method.clone(), route.clone())
            .token(&reader)
            .send(&app)
            .await
            .assert_problem(403, "insufficient_scope");
        Call::new(method, route)
            .token(&carol)
            .send(&app)
            .await
            .assert_problem(403, "forbidden");
    }
    post("/api/v1/challenges")
        .token(&reader)
        .json(json!({"rules": "standard", "days_per_move": 3}))
        .send(&app)
        .await
        .assert_problem(403, "insufficient_scope");
    post("/api/v1/account/vacation")
        .token(&reader)
        .send(&app)
        .await
        .assert_problem(403, "insufficient_scope");
    post("/api/v1/tokens")
        .token(&reader)
        .json(json!({"name": "more", "scopes": ["game:play"]}))
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    // Listing tokens is for signed-in sessions, whatever a personal token's scopes.
    get("/api/v1/tokens")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    get("/api/v1/tokens")
        .token(&carol_session)
        .send(&app)
        .await
        .assert_status(200);
}

// An Idempotency-Key whose request never finished (its instance died with
// it in flight) is refused as in use for a minute, then a retry claims it,
// runs, and its answer is the one replayed from then on.
async fn an_abandoned_idempotency_key_frees_itself(db: Db) {
    use diesel::{ExpressionMethods, QueryDsl, RunQueryDsl, SelectableHelper};
    use kingpost_api::{
        clock::{Clock, SECOND},
        credentials::digest,
        db::schema::tokens,
        middleware::idempotency::credential_scope,
        models::{idempotency, token::Token},
    };

    let clock = clock();
    let shared = TestApp::on(&db).clock(clock.clone()).state();
    let app = init(shared.clone()).await;
    let alice = sign_up(&app, "alice").await;
    sign_up(&app, "bob").await;
    let account = get("/api/v1/account").token(&alice).send(&app).await;
    let account_id = account.body["id"].as_str().unwrap().to_owned();
    let mut conn = shared.pool.get().unwrap();
    // Alice's one sign-in: her keys are kept under its scope.
    let session = tokens::table
        .filter(tokens::account_id.eq(&account_id))
        .select(Token::as_select())
        .first::<Token>(&mut **conn)
        .unwrap();
    let scope = credential_scope(&session);
    let body = json!({"rules": "standard", "days_per_move": 3, "opponent": "bob"});
    // What the dead instance had claimed: this request, no answer yet.
    let hash = digest(&format!("POST /api/v1/challenges\n{body}"));
    assert!(idempotency::claim(&mut conn, &scope, "abandoned", &hash, clock.now()).unwrap());
    drop(conn);
    let retry = || {
        post("/api/v1/challenges")
            .token(&alice)
            .header("Idempotency-Key", "abandoned")
            .json(body.clone())
    };
    clock.advance(30 * SECOND);
    retry()
        .send(&app)
        .await
        .assert_problem(409, "idempotency_key_in_use");
    clock.advance(31 * SECOND);
    let taken = retry().send(&app).await;
    taken.assert_status(201);
    assert_eq!(taken.headers.get("idempotent-replayed").unwrap(), "false");
    let replayed = retry().send(&app).await;
    assert_eq!(replayed.headers.get("idempotent-replayed").unwrap(), "true");
    assert_eq!(replayed.body, taken.body);
}

// A replay is authorised as a fresh request would be and bound to the
// credential that made the first: another token of the account (holding
// other scopes) gets no replay of a session's new token, a revoked token
// gets a 401, and a sign-in's next access token (refreshed) gets the
// replay, with the first answer's headers as they were sent.
async fn a_replay_is_authorised_as_a_fresh_request(db: Db) {
    use crate::support::{delete, sign_in};

    let app = TestApp::on(&db).start().await;
    let session = sign_in_after_sign_up(&app).await;
    let access = session["access_token"].as_str().unwrap().to_owned();
    let body = json!({"name": "bot", "scopes": ["game:read", "game:play", "challenge:write"]});
    fn create_with<'a>(token: &'a str, body: &Value) -> crate::support::Call<'a> {
        post("/api/v1/tokens")
            .token(token)
            .header("Idempotency-Key", "token-1")
            .json(body.clone())
    }
    let create = |token| create_with(token, &body);
    let first = create(&access).send(&app).await;
    let secret = first.assert_status(201)["token"]
        .as_str()
        .unwrap()
        .to_owned();

    let reader = post("/api/v1/tokens")
        .token(&access)
        .json(json!({"name": "reader", "scopes": ["game:read"]}))
        .send(&app)
        .await;
    let reader = reader.assert_status(201)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = create(&reader).send(&app).await;
    refused.assert_problem(403, "forbidden");
    assert!(
        !refused.body.to_string().contains(&secret),
        "{}",
        refused.body
    );
    assert_ne!(refused.headers.get("idempotent-replayed").unwrap(), "true");

    // The same sign-in, its access token refreshed: the first answer.
    let refreshed = post("/api/v1/auth/refresh")
        .json(json!({"refresh_token": session["refresh_token"]}))
        .send(&app)
        .await;
    let refreshed = refreshed.assert_status(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let replayed = create(&refreshed).send(&app).await;
    assert_eq!(replayed.assert_status(201)["token"], secret.as_str());
    assert_eq!(replayed.headers.get("idempotent-replayed").unwrap(), "true");
    // Another sign-in of the same account is another credential.
    let other = sign_in(&app, "alice", PASSWORD).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let fresh = create(&other).send(&app).await;
    assert_ne!(fresh.assert_status(201)["token"], secret.as_str());

    // A bot's challenge: replayed with its Location; once the bot's token is
    // revoked, refused as any of its requests is.
    post("/api/v1/accounts")
        .json(json!({"username": "bob", "password": PASSWORD}))
        .send(&app)
        .await
        .assert_status(201);
    let challenge = || {
        post("/api/v1/challenges")
            .token(&secret)
            .header("Idempotency-Key", "challenge-1")
            .json(json!({"rules": "standard", "days_per_move": 3, "opponent": "bob"}))
    };
    let made = challenge().send(&app).await;
    made.assert_status(201);
    let location = made.headers.get("location").unwrap().clone();
    let again = challenge().send(&app).await;
    assert_eq!(again.assert_status(201), &made.body);
    assert_eq!(again.headers.get("location"), Some(&location));
    assert_eq!(again.headers.get("idempotent-replayed").unwrap(), "true");
    let bot_id = first.body["id"].as_str().unwrap();
    delete(format!("/api/v1/tokens/{bot_id}"))
        .token(&refreshed)
        .send(&app)
        .await
        .assert_status(204);
    challenge()
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
}

/// Signs alice up and in: the token response.
async fn sign_in_after_sign_up<B: actix_web::body::MessageBody>(
    app: &impl crate::support::Served<B>,
) -> Value {
    post("/api/v1/accounts")
        .json(json!({"username": "alice", "password": PASSWORD}))
        .send(app)
        .await
        .assert_status(201);
    crate::support::sign_in(app, "alice", PASSWORD).await
}
