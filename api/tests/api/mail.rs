//! E-mail addresses, verified by a link, and the outbox every mail goes
//! through. The real SMTP exchange is `scripts/mail-test.py`'s.

use diesel::prelude::*;
use kingpost_api::{
    db::{DbConnection, schema::mail_outbox},
    domain::mail,
    models::mail::MailRow,
    state::AppState,
};
use serde_json::json;

use crate::support::{Call, Db, TestApp, get, init, post, sign_up};

crate::on_both_databases!(
    without_smtp_the_server_says_it_sends_no_mail,
    an_address_is_verified_by_its_link,
    a_mail_is_leased_once_and_retried_with_backoff,
    two_instances_claim_each_mail_once
);

/// `PUT /api/v1/account/email` of `address`, with `token`.
pub(crate) fn set_email<'a>(token: &'a str, address: &str) -> Call<'a> {
    Call::new(
        actix_web::http::Method::PUT,
        "/api/v1/account/email".to_owned(),
    )
    .token(token)
    .json(json!({"address": address}))
}

/// Nothing listens on the discard port: what is queued stays queued.
pub(crate) const NOWHERE: &str = "smtp://127.0.0.1:9";

// README, e-mail: without an SMTP server the routes that need one say so.
async fn without_smtp_the_server_says_it_sends_no_mail(db: Db) {
    let (app, [alice]) = TestApp::on(&db).with_users(["alice"]).await;
    set_email(&alice, "alice@example.org")
        .send(&app)
        .await
        .assert_problem(409, "email_off");
    let shown = get("/api/v1/account/email").token(&alice).send(&app).await;
    assert_eq!(
        shown.assert_status(200),
        &json!({"address": null, "verified": false})
    );
}

/// The outbox's mails, oldest first: address, subject, text.
fn outbox(state: &kingpost_api::state::AppState) -> Vec<(String, String, String)> {
    let mut conn = state.pool.get().unwrap();
    mail_outbox::table
        .order(mail_outbox::id)
        .select((
            mail_outbox::to_address,
            mail_outbox::subject,
            mail_outbox::text_body,
        ))
        .load(&mut **conn)
        .unwrap()
}

/// Leases the due mails as an instance's mail loop does.
fn claim(conn: &mut DbConnection, now: i64, limit: i64) -> Vec<MailRow> {
    mail::lease_due(conn, now, limit).unwrap()
}

/// The token of the verification link in a mail's text.
pub(crate) fn token_in(text: &str) -> String {
    let at = text.find("/#/verify-email/").expect("a link") + "/#/verify-email/".len();
    text[at..].split_whitespace().next().unwrap().to_owned()
}

// README, e-mail: an address receives its verification mail (queued with
// the change, in its transaction) and nothing else until the link is
// followed; a link serves once; five mails an hour to an address at most.
async fn an_address_is_verified_by_its_link(db: Db) {
    let state = TestApp::on(&db).mail(NOWHERE).state();
    let app = init(state.clone()).await;
    let alice = sign_up(&app, "alice").await;
    for bad in ["alice", "alice@", "a l@example.org"] {
        set_email(&alice, bad)
            .send(&app)
            .await
            .assert_problem(422, "invalid_email");
    }
    assert!(outbox(&state).is_empty());
    let set = set_email(&alice, " alice@example.org ").send(&app).await;
    assert_eq!(
        set.assert_status(202),
        &json!({"address": "alice@example.org", "verified": false})
    );
    let queued = outbox(&state);
    assert_eq!(queued.len(), 1);
    let (to, subject, text) = &queued[0];
    assert_eq!(to, "alice@example.org");
    assert_eq!(subject, "Confirm your address for kingpost");
    assert!(text.starts_with("Hello alice,"), "{text}");
    let token = token_in(text);

    post("/api/v1/account/email/verify")
        .json(json!({"token": "not-one-we-sent"}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_token");
    post("/api/v1/account/email/verify")
        .json(json!({"token": token}))
        .send(&app)
        .await
        .assert_status(204);
    post("/api/v1/account/email/verify")
        .json(json!({"token": token}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_token");
    let shown = get("/api/v1/account/email").token(&alice).send(&app).await;
    assert_eq!(
        shown.assert_status(200),
        &json!({"address": "alice@example.org", "verified": true})
    );

    // A new address is unverified again, with a new link; the old one is dead.
    set_email(&alice, "alice@example.net")
        .send(&app)
        .await
        .assert_status(202);
    let shown = get("/api/v1/account/email").token(&alice).send(&app).await;
    assert_eq!(shown.assert_status(200)["verified"], false);
    // Four more to it make five in the hour; the sixth is refused.
    for _ in 0..4 {
        set_email(&alice, "alice@example.net")
            .send(&app)
            .await
            .assert_status(202);
    }
    set_email(&alice, "alice@example.net")
        .send(&app)
        .await
        .assert_problem(429, "rate_limited");
    assert_eq!(outbox(&state).len(), 6);
    // Four more addresses make ten mails from the account in the hour.
    for n in 0..4 {
        set_email(&alice, &format!("alice{n}@example.com"))
            .send(&app)
            .await
            .assert_status(202);
    }
    set_email(&alice, "stranger@example.com")
        .send(&app)
        .await
        .assert_problem(429, "rate_limited");

    // A personal token cannot change where mail goes.
    let bot = post("/api/v1/tokens")
        .token(&alice)
        .json(json!({"name": "bot", "scopes": ["game:play"]}))
        .send(&app)
        .await;
    let bot = bot.assert_status(201)["token"].as_str().unwrap().to_owned();
    set_email(&bot, "thief@example.org")
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
}

// README, e-mail: one instance at a time leases a due mail; a failed
// attempt is retried after a wait that grows.
async fn a_mail_is_leased_once_and_retried_with_backoff(db: Db) {
    let state = TestApp::on(&db).mail(NOWHERE).state();
    let app = init(state.clone()).await;
    let alice = sign_up(&app, "alice").await;
    set_email(&alice, "alice@example.org")
        .send(&app)
        .await
        .assert_status(202);
    let now = state.clock.now();
    let mut conn = state.pool.get().unwrap();
    let claimed = claim(&mut conn, now, 10);
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].attempts, 1);
    // Leased: another claim, as another instance would make, finds nothing.
    assert!(claim(&mut conn, now, 10).is_empty());
    // A failure: due again ten seconds on, then twenty after the next.
    mail::record(
        &mut conn,
        &[(claimed[0].clone(), Err("refused".to_owned()))],
        now,
    )
    .unwrap();
    assert!(claim(&mut conn, now + 9_999, 10).is_empty());
    let again = claim(&mut conn, now + 10_000, 10);
    assert_eq!(again[0].attempts, 2);
    let failed = [(again[0].clone(), Err("refused".to_owned()))];
    mail::record(&mut conn, &failed, now + 10_000).unwrap();
    assert!(claim(&mut conn, now + 29_999, 10).is_empty());
    let third = claim(&mut conn, now + 30_000, 10);
    assert_eq!(third.len(), 1);
    mail::record(&mut conn, &[(third[0].clone(), Ok(()))], now + 30_000).unwrap();
    // Sent: never again.
    assert!(claim(&mut conn, now + 1_000_000_000, 10).is_empty());
}

// README, e-mail: every instance runs the mail loop; each mail is leased by
// one of them, so two instances never send one mail twice.
async fn two_instances_claim_each_mail_once(db: Db) {
    let one = TestApp::on(&db).mail(NOWHERE).state();
    let two = TestApp::on(&db).mail(NOWHERE).state();
    let app = init(one.clone()).await;
    for n in 0..10 {
        let token = sign_up(&app, &format!("player{n}")).await;
        for address in ["a", "b"] {
            set_email(&token, &format!("{address}{n}@example.org"))
                .send(&app)
                .await
                .assert_status(202);
        }
    }
    assert_eq!(outbox(&one).len(), 20);
    let now = one.clock.now();
    // Both instances claim at once, a few at a time, until none is left.
    let claim_all = |state: actix_web::web::Data<AppState>| {
        std::thread::spawn(move || {
            let mut mine = Vec::new();
            loop {
                let mut conn = state.pool.get().unwrap();
                let claimed = claim(&mut conn, now, 3);
                if claimed.is_empty() {
                    return mine;
                }
                mine.extend(claimed.into_iter().map(|m| m.id));
            }
        })
    };
    let (first, second) = (claim_all(one.clone()), claim_all(two.clone()));
    let mut ids: Vec<i64> = first.join().unwrap();
    ids.extend(second.join().unwrap());
    ids.sort_unstable();
    let count = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), count, "a mail was claimed twice");
    assert_eq!(count, 20, "every mail was claimed");
}
