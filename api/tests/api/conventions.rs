//! HTTP as clients and proxies expect it: HEAD beside GET, weak entity
//! tags, `no-store` on private answers, `/docs` without its slash, strict
//! request bodies, and long polls woken by every change they show.

use std::time::{Duration, Instant};

use actix_web::http::Method;
use serde_json::json;

use crate::{
    on_both_databases,
    support::{
        Call, Db, PASSWORD, TestApp, get, init, post, sign_up, sign_up_for_a_year,
        start_standard_game, until_parked,
    },
};

on_both_databases!(
    a_vacation_changes_the_etag_and_wakes_long_polls,
    a_full_pool_is_a_503_that_changes_nothing
);

// RFC 9110, 9.3.2: HEAD is answered wherever GET is, with the same headers.
#[actix_web::test]
async fn head_is_served_beside_get() {
    let (app, [alice, bob]) = TestApp::on(&Db::sqlite())
        .with_users(["alice", "bob"])
        .await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let got = get(&path).token(&alice).send(&app).await;
    let head = Call::new(Method::HEAD, &path)
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(head.status.as_u16(), 200);
    assert_eq!(head.headers.get("etag"), got.headers.get("etag"));
    let variants = Call::new(Method::HEAD, "/api/v1/variants").send(&app).await;
    assert_eq!(variants.status.as_u16(), 200);
}

// RFC 9110, 13.1.2: If-None-Match compares weakly, so a tag that a
// compressing proxy weakened (W/"...") still matches.
#[actix_web::test]
async fn a_weak_etag_matches() {
    let (app, [alice, bob]) = TestApp::on(&Db::sqlite())
        .with_users(["alice", "bob"])
        .await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let got = get(&path).token(&alice).send(&app).await;
    let etag = got.etag();
    for tag in [
        etag.clone(),
        format!("W/{etag}"),
        format!("\"other\", W/{etag}"),
    ] {
        let again = get(&path)
            .token(&alice)
            .header("If-None-Match", tag.clone())
            .send(&app)
            .await;
        assert_eq!(again.status.as_u16(), 304, "{tag}");
    }
    let other = get(&path)
        .token(&alice)
        .header("If-None-Match", "W/\"1-0\"")
        .send(&app)
        .await;
    assert_eq!(other.status.as_u16(), 200);
}

// RFC 6749, 5.1: token answers are never stored by caches; neither is an
// account's own data. Public documents stay cacheable.
#[actix_web::test]
async fn private_answers_are_not_stored() {
    let (app, [alice]) = TestApp::on(&Db::sqlite()).with_users(["alice"]).await;
    let signed_in = post("/api/v1/auth/token")
        .json(json!({"grant_type": "password", "username": "alice", "password": PASSWORD}))
        .send(&app)
        .await;
    signed_in.assert_status(200);
    assert_eq!(signed_in.headers.get("cache-control").unwrap(), "no-store");
    let account = get("/api/v1/account").token(&alice).send(&app).await;
    assert_eq!(account.headers.get("cache-control").unwrap(), "no-store");
    let variants = get("/api/v1/variants").send(&app).await;
    assert_eq!(variants.headers.get("cache-control"), None);
}

// `/docs` as people type it leads to the page at `/docs/`.
#[actix_web::test]
async fn docs_without_the_slash_redirects() {
    let app = TestApp::on(&Db::sqlite()).start().await;
    let docs = get("/docs").send(&app).await;
    assert_eq!(docs.status.as_u16(), 308);
    assert_eq!(docs.headers.get("location").unwrap(), "/docs/");
}

// A start with a field its kind does not have is refused, not read as
// something else (strict bodies, like every other request schema).
#[actix_web::test]
async fn a_start_with_a_stray_field_is_refused() {
    let (app, [alice]) = TestApp::on(&Db::sqlite()).with_users(["alice"]).await;
    for start in [
        json!({"kind": "standard", "id": 3}),
        json!({"kind": "prechess", "fen": "x"}),
    ] {
        post("/api/v1/challenges")
            .token(&alice)
            .json(json!({"rules": "bunker-leap", "start": start, "days_per_move": 3}))
            .send(&app)
            .await
            .assert_problem(422, "invalid_body");
    }
}

// A vacation moves the deadline and shows `on_vacation` without changing
// the game's row: the ETag changes with it, and a long poll held on the
// game is woken (README: while on vacation a player's clocks stand still,
// and opponents see it).
async fn a_vacation_changes_the_etag_and_wakes_long_polls(db: Db) {
    let state = TestApp::on(&db).state();
    let app = init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let before = get(&path).token(&bob).send(&app).await;
    let etag = before.etag();
    let poll = get(format!("{path}?wait=5"))
        .token(&bob)
        .header("If-None-Match", etag.clone())
        .send(&app);
    let parked = state.hub.parked();
    let vacation_later = async {
        until_parked(&state.hub, parked).await;
        post("/api/v1/account/vacation")
            .token(&alice)
            .send(&app)
            .await
            .assert_status(200)
            .clone()
    };
    let started = Instant::now();
    let (woken, _) = futures_util::future::join(poll, vacation_later).await;
    assert_eq!(woken.status.as_u16(), 200, "woken by the vacation");
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(woken.body["white"]["on_vacation"], true);
    assert_ne!(woken.headers.get("etag").unwrap().to_str().unwrap(), etag);
}

// A database out of connections is a passing state, not a fault: `503`
// with `Retry-After`, never a `500`, and the request changed nothing.
async fn a_full_pool_is_a_503_that_changes_nothing(db: Db) {
    let (app, pool) = TestApp::on(&db).small_pool(2, Duration::from_millis(300));
    let app = app.start().await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let path = format!("/api/v1/games/{}", game["id"].as_str().unwrap());
    let held: Vec<_> = (0..2).map(|_| pool.get().unwrap()).collect();
    let busy = post(format!("{path}/moves"))
        .token(&alice)
        .json(json!({"move": "e4", "ply": 0}))
        .send(&app)
        .await;
    busy.assert_problem(503, "service_busy");
    assert_eq!(busy.headers.get("retry-after").unwrap(), "1");
    drop(held);
    let after = get(&path).token(&alice).send(&app).await;
    assert_eq!(after.assert_status(200)["ply"], 0);
}

/// The backend serving a pooled Postgres connection.
fn backend_pid(
    conn: &mut kingpost_api::db::DbConnection,
) -> Result<i32, kingpost_api::error::ApiError> {
    #[derive(diesel::QueryableByName)]
    struct Pid {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }
    let kingpost_api::db::DbConnection::Postgresql(pg) = conn else {
        unreachable!("a Postgres pool");
    };
    Ok(diesel::RunQueryDsl::get_result::<Pid>(
        diesel::sql_query("SELECT pg_backend_pid() AS pid"),
        pg,
    )?
    .pid)
}

// A connection given back a moment ago is handed out without a test
// (`db::RETURNED_RECENTLY`), so one Postgres dropped in that moment can
// fail one request: with `503` and `Retry-After`, never `500`; the lost
// connection is dropped as it is given back, and the next request has a
// new one.
#[actix_web::test]
async fn a_connection_postgres_dropped_is_replaced() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    use kingpost_api::{
        db::{PoolSettings, connect_with, read_own},
        error::ApiError,
    };

    let Some(db) = Db::postgres() else { return };
    let settings = PoolSettings {
        max_size: 1,
        connection_timeout: Duration::from_secs(5),
        sqlite_cache_mib: None,
        sqlite_checkpoints_apart: false,
    };
    let pool = connect_with(&db.url(), settings).unwrap();
    let first = read_own(&pool, backend_pid).await.unwrap();
    let Db::Postgres { base, .. } = &db else {
        unreachable!()
    };
    let mut admin = PgConnection::establish(base).unwrap();
    // Waits (up to 5 s) until the backend has gone.
    diesel::sql_query(format!("SELECT pg_terminate_backend({first}, 5000)"))
        .execute(&mut admin)
        .unwrap();

    match read_own(&pool, backend_pid).await {
        Ok(pid) => assert_ne!(pid, first, "the dropped connection answered"),
        Err(lost @ ApiError::ConnectionLost(_)) => {
            let answer = actix_web::ResponseError::error_response(&lost);
            assert_eq!(answer.status(), 503);
            assert_eq!(answer.headers().get("retry-after").unwrap(), "1");
        }
        Err(other) => panic!("a lost connection answered {other:?}"),
    }
    let next = read_own(&pool, backend_pid).await.unwrap();
    assert_ne!(next, first);
}
