//! Authentication and authorization: every forged, expired, revoked or
//! misused token is a 401 (or a 403 for a missing scope) with a problem body.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use kingpost_api::{
    app::openapi_document,
    clock::MINUTE,
    credentials::{Claims, Scope},
};
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{
        Db, SECRET, TestApp, clock, delete, get, play_all, post, sign_in, sign_up,
        start_standard_game,
    },
};

on_both_databases!(
    forged_and_expired_tokens,
    personal_tokens_and_scopes,
    every_operation_asks_what_its_spec_says,
    refresh_rotation,
    a_password_change_signs_out_the_other_sign_ins
);

/// The claims of a token, read without checking it.
fn claims_of(token: &str) -> Claims {
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

fn sign(claims: &Claims, algorithm: Algorithm, secret: &str) -> String {
    jsonwebtoken::encode(
        &Header::new(algorithm),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()).unwrap(),
    )
    .unwrap()
}

async fn forged_and_expired_tokens(db: Db) {
    let clock = clock();
    let (app, [alice]) = TestApp::on(&db)
        .clock(clock.clone())
        .with_users(["alice"])
        .await;
    get("/api/v1/account")
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);

    let no_header = get("/api/v1/account").send(&app).await;
    no_header.assert_problem(401, "unauthorized");
    assert!(no_header.headers.get("www-authenticate").is_some());
    get("/api/v1/account")
        .header("Authorization", "Basic YWxpY2U6eA==")
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");

    let claims = claims_of(&alice);
    let resign = |edit: &dyn Fn(&mut Claims)| {
        let mut forged = claims_of(&alice);
        edit(&mut forged);
        sign(&forged, Algorithm::HS256, SECRET)
    };
    let mut tampered = alice.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    let alg_none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        alice.split('.').nth(1).unwrap()
    );
    let forgeries: Vec<(&str, String)> = vec![
        ("garbage", "not.a.jwt".to_owned()),
        ("truncated", alice[..alice.len() / 2].to_owned()),
        ("tampered signature", tampered),
        ("alg none", alg_none),
        (
            "HS512 instead of HS256",
            sign(&claims, Algorithm::HS512, SECRET),
        ),
        ("RS256 header on an HMAC signature (algorithm confusion)", {
            let hs = sign(&claims, Algorithm::HS256, SECRET);
            let mut parts: Vec<String> = hs.split('.').map(str::to_owned).collect();
            parts[0] = URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","typ":"JWT"}"#);
            parts.join(".")
        }),
        ("expired long ago", resign(&|c| c.exp = c.iat - 3600)),
        (
            "wrong key",
            sign(&claims, Algorithm::HS256, "another secret entirely"),
        ),
        (
            "wrong audience",
            resign(&|c| c.aud = "someone-else".to_owned()),
        ),
        ("wrong issuer", resign(&|c| c.iss = "mallory".to_owned())),
        ("not yet valid", resign(&|c| c.iat += 3600)),
        ("unknown jti", resign(&|c| c.jti = "forged".into())),
        ("another subject", resign(&|c| c.sub = "someone".to_owned())),
    ];
    for (what, token) in forgeries {
        let answer = get("/api/v1/account").token(&token).send(&app).await;
        assert_eq!(answer.status.as_u16(), 401, "{what}: {:#}", answer.body);
        answer.assert_problem(401, "unauthorized");
    }

    // Sessions last 15 minutes by the service's clock.
    clock.advance(16 * MINUTE);
    let expired = get("/api/v1/account").token(&alice).send(&app).await;
    expired.assert_problem(401, "unauthorized");
    assert!(expired.body["detail"].as_str().unwrap().contains("expired"));

    // Wrong passwords and unknown accounts look the same.
    post("/api/v1/auth/token")
        .json(json!({"grant_type": "password", "username": "alice", "password": "wrong password"}))
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
    post("/api/v1/auth/token")
        .json(json!({"grant_type": "password", "username": "nobody", "password": "wrong password"}))
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
}

async fn personal_tokens_and_scopes(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    fn create(token: &str, body: Value) -> crate::support::Call<'_> {
        post("/api/v1/tokens").token(token).json(body)
    }

    let reader = create(&alice, json!({"name": "reader", "scopes": ["game:read"]}))
        .send(&app)
        .await;
    let reader = reader.assert_status(201).clone();
    let reader_jwt = reader["token"].as_str().unwrap().to_owned();
    assert_eq!(reader["scopes"], json!(["game:read"]));
    let bot = create(&alice, json!({"name": "bot", "scopes": ["game:read", "game:play", "challenge:write"], "expires_in_days": 7}))
        .send(&app)
        .await;
    let bot_jwt = bot.body["token"].as_str().unwrap().to_owned();

    create(&alice, json!({"name": "", "scopes": ["game:read"]}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_token_name");
    create(&alice, json!({"name": "x", "scopes": []}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_scopes");
    create(&alice, json!({"name": "x", "scopes": ["admin"]}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_body");
    create(
        &alice,
        json!({"name": "x", "scopes": ["game:read"], "expires_in_days": 0}),
    )
    .send(&app)
    .await
    .assert_problem(422, "invalid_lifetime");
    create(&bot_jwt, json!({"name": "x", "scopes": ["game:read"]}))
        .send(&app)
        .await
        .assert_problem(403, "forbidden");

    let listed = get("/api/v1/tokens").token(&alice).send(&app).await;
    let listed = listed.assert_status(200)["tokens"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(listed.len(), 2);
    assert!(
        listed.iter().all(|t| t.get("token").is_none()),
        "a listed token never shows its JWT"
    );

    // The bot plays; the reader reads but may not play or challenge.
    let game = start_standard_game(&app, &bob, &bot_jwt, "alice").await;
    let id = game["id"].as_str().unwrap();
    let game = play_all(&app, &game, &bob, &bot_jwt, &["e4", "e5"]).await;
    get(format!("/api/v1/games/{id}"))
        .token(&reader_jwt)
        .send(&app)
        .await
        .assert_status(200);
    post(format!("/api/v1/games/{id}/moves"))
        .token(&reader_jwt)
        .json(json!({"move": "d4", "ply": game["ply"]}))
        .send(&app)
        .await
        .assert_problem(403, "insufficient_scope");
    post("/api/v1/challenges")
        .token(&reader_jwt)
        .json(json!({"rules": "standard", "days_per_move": 3}))
        .send(&app)
        .await
        .assert_problem(403, "insufficient_scope");

    // Revoked tokens stop working at once; revoking twice is a 404.
    let bot_id = bot.body["id"].as_str().unwrap();
    delete(format!("/api/v1/tokens/{bot_id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    get("/api/v1/account")
        .token(&bot_jwt)
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    delete(format!("/api/v1/tokens/{bot_id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    let reader_id = reader["id"].as_str().unwrap();
    delete(format!("/api/v1/tokens/{reader_id}"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get("/api/v1/account")
        .token(&reader_jwt)
        .send(&app)
        .await
        .assert_status(200);
}

async fn refresh_rotation(db: Db) {
    let app = TestApp::on(&db).start().await;
    sign_up(&app, "alice").await;
    let session = sign_in(&app, "alice", crate::support::PASSWORD).await;
    let first = session["refresh_token"].as_str().unwrap().to_owned();
    let refresh = |token: &str| post("/api/v1/auth/refresh").json(json!({"refresh_token": token}));

    let second = refresh(&first).send(&app).await;
    let second = second.assert_status(200).clone();
    let access = second["access_token"].as_str().unwrap();
    get("/api/v1/account")
        .token(access)
        .send(&app)
        .await
        .assert_status(200);
    let second_refresh = second["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(second_refresh, first);

    // The first token again: someone else has it. The whole sign-in is revoked.
    refresh(&first)
        .send(&app)
        .await
        .assert_problem(401, "refresh_token_reused");
    refresh(&second_refresh)
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    refresh("made-up")
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    // Another sign-in is unaffected.
    let other = sign_in(&app, "alice", crate::support::PASSWORD).await;
    refresh(other["refresh_token"].as_str().unwrap())
        .send(&app)
        .await
        .assert_status(200);
}

/// A body each operation that takes one accepts, so that what answers is
/// the access check and not the body's.
fn body_for<'a>(call: crate::support::Call<'a>, operation: &str) -> crate::support::Call<'a> {
    let json = match operation {
        "play_move" => json!({"move": "e4", "ply": 0}),
        "annotate_ply" => json!({"comment": "probe"}),
        "create_message" => json!({"text": "probe"}),
        "change_password" => json!({"current_password": "probe", "new_password": "probe"}),
        "delete_account" => json!({"password": "probe"}),
        "set_email" => json!({"address": "probe@example.org"}),
        "change_notification_settings" => json!({"digest_hour": 8}),
        "replace_conditionals" => json!({"lines": []}),
        "create_challenge" => json!({"rules": "standard", "days_per_move": 3}),
        "create_tournament" => json!({"name": "probe", "rules": "standard", "days_per_move": 3,
                                      "capacity": 3, "signup_deadline": "2027-01-01T00:00:00Z"}),
        "create_personal_token" => json!({"name": "probe", "scopes": ["game:read"]}),
        "create_team" => json!({"name": "probe"}),
        "invite_to_team" | "add_team_captain" => json!({"username": "alice"}),
        "set_board_order" => json!({"usernames": ["alice"]}),
        "create_webhook" => json!({
            "url": "http://127.0.0.1:9/hook",
            "secret": "a secret of sixteen or more",
            "events": ["opponent_moved"]
        }),
        "create_import" => {
            return call.raw("application/x-chess-pgn", "[Event \"probe\"]\n\n1. e4 *\n");
        }
        "get_rating_history" | "get_leaderboard" => {
            let mut call = call;
            call.path.push_str("?rules=standard");
            return call;
        }
        "search_positions" | "explore_position" | "export_position_search" => {
            let mut call = call;
            call.path.push_str("?rules=standard&moves=e4");
            return call;
        }
        _ => return call,
    };
    call.json(json)
}

// The OpenAPI document is the table of who may call what: each operation's
// `security` names a scope, `session`, or nothing beyond a valid token. Every
// operation is called with tokens that lack what it names (refused with a
// 403) and with one that has it (let through to the operation itself).
async fn every_operation_asks_what_its_spec_says(db: Db) {
    let (app, [session]) = TestApp::on(&db).with_users(["alice"]).await;
    let mut personal = std::collections::HashMap::new();
    for scopes in Scope::ALL
        .iter()
        .map(|s| vec![s.key()])
        .chain([Scope::ALL.iter().map(|s| s.key()).collect()])
    {
        let token = post("/api/v1/tokens")
            .token(&session)
            .json(json!({"name": "probe", "scopes": scopes}))
            .send(&app)
            .await;
        personal.insert(
            scopes.join(" "),
            token.assert_status(201)["token"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let every_scope = Scope::ALL
        .iter()
        .map(|s| s.key())
        .collect::<Vec<_>>()
        .join(" ");
    let document = serde_json::to_value(openapi_document()).unwrap();
    let mut checked = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(security) = operation.get("security") else {
                continue;
            };
            let id = operation["operationId"].as_str().unwrap();
            let roles: Vec<&str> = security[0]["bearer"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            let url = path
                .replace("{id}", "nosuchthing00000")
                .replace("{username}", "alice")
                .replace("{year}", "2026")
                .replace("{month}", "11")
                .replace("{ply}", "1");
            let method: actix_web::http::Method = method.to_uppercase().parse().unwrap();
            let call = |token| {
                body_for(
                    crate::support::Call::new(method.clone(), url.clone()).token(token),
                    id,
                )
            };
            // Tokens without what the operation names.
            let lacking: Vec<&String> = match roles.as_slice() {
                [] => Vec::new(),
                ["session"] => vec![&personal[&every_scope]],
                [scope] => Scope::ALL
                    .iter()
                    .filter(|s| s.key() != *scope)
                    .map(|s| &personal[s.key()])
                    .collect(),
                other => panic!("{id}: one role expected, got {other:?}"),
            };
            for token in lacking {
                let answer = call(token).send(&app).await;
                assert_eq!(
                    answer.status.as_u16(),
                    403,
                    "{id} with a token lacking {roles:?}: {answer:?}"
                );
                let code = answer.body["code"].as_str().unwrap();
                assert!(
                    matches!(code, "insufficient_scope" | "forbidden"),
                    "{id}: {code}"
                );
            }
            // A token with it: past the access check (the stream would stay open).
            if id == "stream_events" {
                checked += 1;
                continue;
            }
            let having = match roles.as_slice() {
                ["session"] => &session,
                [scope] => &personal[*scope],
                _ => &personal[Scope::ChallengeWrite.key()],
            };
            let answer = call(having).send(&app).await;
            let refused = answer.status.as_u16() == 401
                || answer.status.as_u16() == 403
                    && matches!(
                        answer.body["code"].as_str(),
                        Some("insufficient_scope" | "forbidden")
                    );
            assert!(!refused, "{id} with {roles:?} is refused: {answer:?}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} operations checked");

    // By name: tokens and webhooks are not for tokens that play or challenge.
    let reader = &personal[Scope::GameRead.key()];
    let challenger = &personal[Scope::ChallengeWrite.key()];
    let listed = get("/api/v1/tokens").token(&session).send(&app).await;
    let ids: Vec<String> = listed.assert_status(200)["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    let hook = post("/api/v1/webhooks")
        .token(&session)
        .json(json!({"url": "http://127.0.0.1:9/hook", "secret": "a secret of sixteen or more", "events": ["opponent_moved"]}))
        .send(&app)
        .await;
    let hook = hook.assert_status(201)["id"].as_str().unwrap().to_owned();
    let readers_own = claims_of(reader).jti;
    for id in ids.iter().filter(|id| **id != *readers_own) {
        delete(format!("/api/v1/tokens/{id}"))
            .token(reader)
            .send(&app)
            .await
            .assert_problem(403, "forbidden");
    }
    get("/api/v1/tokens")
        .token(challenger)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    delete(format!("/api/v1/webhooks/{hook}"))
        .token(challenger)
        .send(&app)
        .await
        .assert_problem(403, "insufficient_scope");
    // RFC 9110, 11.1: the authentication scheme is matched without regard to case.
    for scheme in ["bearer", "BEARER", "Bearer"] {
        get("/api/v1/account")
            .header("Authorization", format!("{scheme} {session}"))
            .send(&app)
            .await
            .assert_status(200);
    }
    // A personal token may end itself, as a client signing out does.
    let own = claims_of(challenger).jti;
    delete(format!("/api/v1/tokens/{own}"))
        .token(challenger)
        .send(&app)
        .await
        .assert_status(204);
    get("/api/v1/account")
        .token(challenger)
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
}

// README, accounts: a password changed from a session signs out every other
// sign-in of the account; that session and the personal tokens stay, and a
// wrong current password counts as a failed sign-in.
async fn a_password_change_signs_out_the_other_sign_ins(db: Db) {
    let (app, [laptop]) = TestApp::on(&db).with_users(["alice"]).await;
    let phone = sign_in(&app, "alice", crate::support::PASSWORD).await;
    let bot = post("/api/v1/tokens")
        .token(&laptop)
        .json(json!({"name": "bot", "scopes": ["game:read"]}))
        .send(&app)
        .await;
    let bot = bot.assert_status(201)["token"].as_str().unwrap().to_owned();
    fn change<'a>(token: &'a str, current: &str, new: &str) -> crate::support::Call<'a> {
        put("/api/v1/account/password")
            .token(token)
            .json(json!({"current_password": current, "new_password": new}))
    }
    const NEW: &str = "a longer passphrase of mine";

    change(&laptop, "not my password", NEW)
        .send(&app)
        .await
        .assert_problem(422, "wrong_password");
    change(&laptop, crate::support::PASSWORD, "alice1234")
        .send(&app)
        .await
        .assert_problem(422, "invalid_password");
    change(&bot, crate::support::PASSWORD, NEW)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    // Nothing changed yet: every credential works.
    for token in [&laptop, phone["access_token"].as_str().unwrap(), &bot] {
        get("/api/v1/account")
            .token(token)
            .send(&app)
            .await
            .assert_status(200);
    }

    change(&laptop, crate::support::PASSWORD, NEW)
        .send(&app)
        .await
        .assert_status(204);
    get("/api/v1/account")
        .token(&laptop)
        .send(&app)
        .await
        .assert_status(200);
    get("/api/v1/account")
        .token(&bot)
        .send(&app)
        .await
        .assert_status(200);
    get("/api/v1/account")
        .token(phone["access_token"].as_str().unwrap())
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    post("/api/v1/auth/refresh")
        .json(json!({"refresh_token": phone["refresh_token"]}))
        .send(&app)
        .await
        .assert_status(401);
    post("/api/v1/auth/token")
        .json(json!({"grant_type": "password", "username": "alice", "password": crate::support::PASSWORD}))
        .send(&app)
        .await
        .assert_problem(401, "invalid_credentials");
    sign_in(&app, "alice", NEW).await;

    // Wrong current passwords are failed sign-ins of the username: the
    // fifth locks it for the window, even from a session.
    let (locked, [session]) = TestApp::on(&db)
        .limits(kingpost_api::budgets::RateLimits::default())
        .with_users(["bob"])
        .await;
    for _ in 0..5 {
        change(&session, "wrong", NEW)
            .send(&locked)
            .await
            .assert_problem(422, "wrong_password");
    }
    change(&session, crate::support::PASSWORD, NEW)
        .send(&locked)
        .await
        .assert_problem(429, "rate_limited");
}

fn put(path: &str) -> crate::support::Call<'static> {
    crate::support::Call::new(actix_web::http::Method::PUT, path.to_owned())
}
