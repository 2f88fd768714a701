//! Authentication and authorization: every forged, expired, revoked or
//! misused token is a 401 (or a 403 for a missing scope) with a problem body.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use kingpost_api::{auth::Claims, clock::MINUTE};
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{
        Db, SECRET, clock, delete, get, init, play_all, post, sign_in, sign_up,
        start_standard_game, state,
    },
};

on_both_databases!(
    forged_and_expired_tokens,
    personal_tokens_and_scopes,
    refresh_rotation
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
    let app = init(state(&db, clock.clone())).await;
    let alice = sign_up(&app, "alice").await;
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
        ("unknown jti", resign(&|c| c.jti = "forged".to_owned())),
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
    let app = init(state(&db, clock())).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
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
    let app = init(state(&db, clock())).await;
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
