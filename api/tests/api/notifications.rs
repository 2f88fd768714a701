//! Notification mails (each event at once, past ten an hour a digest, or a
//! daily digest), one-click unsubscribe, and "forgot password". The real
//! SMTP exchange and its headers are `scripts/mail-test.py`'s.

use actix_web::http::Method;
use diesel::prelude::*;
use kingpost_api::{
    clock::{DAY, HOUR, MINUTE},
    db::schema::mail_outbox,
    domain::{mail, notices::Letter, notifications},
    state::AppState,
};
use serde_json::{Value, json};

use crate::{
    mail::{NOWHERE, set_email, token_in},
    support::{
        Call, Db, Served, TestApp, clock, get, init, play_all, post, sign_in, sign_up,
        start_standard_game,
    },
};

crate::on_both_databases!(
    a_move_is_mailed_to_a_verified_opponent,
    settings_choose_what_is_mailed,
    past_ten_an_hour_the_rest_wait_for_one_digest,
    a_daily_digest_lists_every_game_to_move,
    one_click_unsubscribes,
    a_forgotten_password_is_reset_once_by_its_link
);

fn put(path: impl Into<String>) -> Call<'static> {
    Call::new(Method::PUT, path)
}

/// Gives `token`'s account the address `address`, verified.
async fn verified<B: actix_web::body::MessageBody>(
    app: &impl Served<B>,
    state: &AppState,
    token: &str,
    address: &str,
) {
    set_email(token, address).send(app).await.assert_status(202);
    let (_, _, text) = mails(state, "verification")
        .pop()
        .expect("a verification mail");
    post("/api/v1/account/email/verify")
        .json(json!({"token": token_in(&text)}))
        .send(app)
        .await
        .assert_status(204);
}

/// The outbox's mails of `kind`, oldest first: address, subject, text as
/// stored (empty for a notice until it is sent).
fn mails(state: &AppState, kind: &str) -> Vec<(String, String, String)> {
    let mut conn = state.pool.get().unwrap();
    mail_outbox::table
        .filter(mail_outbox::kind.eq(kind))
        .order(mail_outbox::id)
        .select((
            mail_outbox::to_address,
            mail_outbox::subject,
            mail_outbox::text_body,
        ))
        .load(&mut **conn)
        .unwrap()
}

/// The mails an instance's mail loop would send now, as written then:
/// address and letter (leased, so that a second call finds only newer ones).
fn send_now(state: &AppState) -> Vec<(String, Letter)> {
    let links = state.mailer.as_ref().unwrap().links(&state.keys);
    let mut conn = state.pool.get().unwrap();
    let now = state.clock.now();
    let leased = mail::lease_due(&mut conn, now, 1000).unwrap();
    let claimed = mail::compose(&mut conn, &links, leased);
    let sent: Vec<_> = claimed
        .iter()
        .map(|(row, _)| (row.clone(), Ok(())))
        .collect();
    mail::record(&mut conn, &sent, now).unwrap();
    claimed
        .into_iter()
        .map(|(row, letter)| (row.to_address, letter.expect("written")))
        .collect()
}

/// A personal token of `session`'s account with every game scope for a
/// year: for tests that move the clock past a session's hour.
async fn for_a_year<B: actix_web::body::MessageBody>(
    app: &impl Served<B>,
    session: &str,
) -> String {
    let token = post("/api/v1/tokens")
        .token(session)
        .json(json!({"name": "tests", "scopes": ["game:read", "game:play", "challenge:write"], "expires_in_days": 366}))
        .send(app)
        .await;
    token.assert_status(201)["token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Writes the digests due now, as the mail loop does.
fn digests_now(state: &AppState) -> usize {
    let links = state.mailer.as_ref().unwrap().links(&state.keys);
    let mut conn = state.pool.get().unwrap();
    let now = state.clock.now();
    let due = notifications::digests_due(&mut conn, now, 100).unwrap();
    for row in &due {
        notifications::send_digest(&mut conn, &links, row, now).unwrap();
    }
    due.len()
}

async fn settings<B: actix_web::body::MessageBody>(app: &impl Served<B>, token: &str) -> Value {
    let shown = get("/api/v1/account/notifications")
        .token(token)
        .send(app)
        .await;
    shown.assert_status(200).clone()
}

// README, notifications: an event mailed at once is queued in the
// transaction of the change and written when sent, with a link to the game
// and the one-click unsubscribe link; an unverified address gets nothing.
async fn a_move_is_mailed_to_a_verified_opponent(db: Db) {
    let state = TestApp::on(&db).mail(NOWHERE).state();
    let app = init(state.clone()).await;
    let (alice, bob, carol) = (
        sign_up(&app, "alice").await,
        sign_up(&app, "bob").await,
        sign_up(&app, "carol").await,
    );
    verified(&app, &state, &bob, "bob@example.org").await;
    set_email(&carol, "carol@example.org")
        .send(&app)
        .await
        .assert_status(202);
    send_now(&state); // the verification mails
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    start_standard_game(&app, &alice, &carol, "carol").await;
    let started = send_now(&state);
    let subjects: Vec<&str> = started.iter().map(|(_, l)| l.subject.as_str()).collect();
    assert_eq!(
        subjects,
        ["alice challenges you", "A game against alice started"],
        "bob alone"
    );
    assert!(
        started[0]
            .1
            .text
            .contains("alice challenges you to a casual game, 3 days a move.")
    );
    assert!(
        started[1]
            .1
            .text
            .contains("you play Black. alice moves first.")
    );

    play_all(&app, &game, &alice, &bob, &["e2e4"]).await;
    let sent = send_now(&state);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (to, letter) = &sent[0];
    assert_eq!(to, "bob@example.org");
    assert_eq!(letter.subject, "Your move against alice: 1. e4");
    let id = game["id"].as_str().unwrap();
    let link = format!("http://kingpost.test/#/games/{id}");
    assert!(
        letter.text.contains(&format!("Open the game: {link}")),
        "{}",
        letter.text
    );
    assert!(
        letter
            .html
            .contains(&format!("<a href=\"{link}\">Open the game</a>"))
    );
    let unsubscribe = letter.unsubscribe.as_deref().expect("an unsubscribe link");
    assert!(
        unsubscribe.starts_with("http://kingpost.test/api/v1/notifications/unsubscribe?token=")
    );
    assert!(letter.text.contains(unsubscribe));
    // Bob's reply goes to alice, who has no address: nothing is queued.
    play_all(&app, &game, &alice, &bob, &["e7e5"]).await;
    assert!(send_now(&state).is_empty());
}

// README, notifications: the settings name the mailed events; an hour
// past 23 or a zone that is none is refused and changes nothing.
async fn settings_choose_what_is_mailed(db: Db) {
    let state = TestApp::on(&db).mail(NOWHERE).state();
    let app = init(state.clone()).await;
    let (alice, bob) = (sign_up(&app, "alice").await, sign_up(&app, "bob").await);
    verified(&app, &state, &bob, "bob@example.org").await;
    let shown = settings(&app, &bob).await;
    assert_eq!(shown["email_delivery"], "immediate");
    assert_eq!(shown["digest_hour"], 8);
    assert_eq!(shown["time_zone"], "UTC");
    assert!(
        shown["email_events"]
            .as_array()
            .unwrap()
            .contains(&json!("opponent_moved"))
    );

    for (body, code) in [
        (json!({"digest_hour": 24}), "invalid_notification_settings"),
        (
            json!({"time_zone": "Mars/Olympus"}),
            "invalid_notification_settings",
        ),
        (json!({"email_events": ["no_such_event"]}), "invalid_body"),
    ] {
        put("/api/v1/account/notifications")
            .token(&bob)
            .json(body)
            .send(&app)
            .await
            .assert_problem(422, code);
    }
    assert_eq!(settings(&app, &bob).await, shown);

    let changed = put("/api/v1/account/notifications")
        .token(&bob)
        .json(json!({"email_events": ["game_finished", "game_finished"], "time_zone": "Europe/Paris"}))
        .send(&app)
        .await;
    let changed = changed.assert_status(200);
    assert_eq!(changed["email_events"], json!(["game_finished"]));
    assert_eq!(changed["time_zone"], "Europe/Paris");
    send_now(&state);
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    play_all(&app, &game, &alice, &bob, &["e2e4"]).await;
    assert!(send_now(&state).is_empty(), "no start, no move mailed");
    let id = game["id"].as_str().unwrap();
    post(format!("/api/v1/games/{id}/resign"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
    let sent = send_now(&state);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1.subject, "Your game against alice ended: you won");
}

// README, notifications: ten notices an hour at most; past them, the
// hour's other events wait for one digest at its end, which lists every
// game to move.
async fn past_ten_an_hour_the_rest_wait_for_one_digest(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).mail(NOWHERE).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let (alice, bob) = (sign_up(&app, "alice").await, sign_up(&app, "bob").await);
    verified(&app, &state, &bob, "bob@example.org").await;
    let (alice, bob) = (for_a_year(&app, &alice).await, for_a_year(&app, &bob).await);
    send_now(&state);
    let mut games = Vec::new();
    for _ in 0..8 {
        games.push(start_standard_game(&app, &alice, &bob, "bob").await);
    }
    for game in &games {
        play_all(&app, game, &alice, &bob, &["e2e4"]).await;
    }
    // Eight challenges, eight starts and eight moves: ten mailed, the rest
    // held for the digest.
    assert_eq!(mails(&state, "notice").len(), 10);
    let due = settings(&app, &bob).await["next_digest_at"].clone();
    assert!(due.is_string(), "a digest is due: {due}");
    assert_eq!(digests_now(&state), 0, "not before the hour's end");
    clock.advance(HOUR + MINUTE);
    assert_eq!(digests_now(&state), 1);
    let sent = send_now(&state);
    let digest = &sent.last().unwrap().1;
    assert_eq!(digest.subject, "kingpost: your move in 8 games");
    assert_eq!(
        digest.text.matches("- against alice").count(),
        8,
        "{}",
        digest.text
    );
    assert!(digest.unsubscribe.is_some());
    // Then a mail an event again.
    assert!(settings(&app, &bob).await["next_digest_at"].is_null());
    play_all(&app, &games[0], &alice, &bob, &["e7e5", "g1f3"]).await;
    assert_eq!(send_now(&state).len(), 1);
}

// README, notifications: a digest player gets one mail a day at the hour
// chosen, in their zone, and no mail an event.
async fn a_daily_digest_lists_every_game_to_move(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).mail(NOWHERE).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let (alice, bob) = (sign_up(&app, "alice").await, sign_up(&app, "bob").await);
    verified(&app, &state, &bob, "bob@example.org").await;
    let chosen = put("/api/v1/account/notifications")
        .token(&bob)
        .json(json!({"email_delivery": "digest", "digest_hour": 7, "time_zone": "Asia/Tokyo"}))
        .send(&app)
        .await;
    let due: String = chosen.assert_status(200)["next_digest_at"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        due.ends_with("T22:00:00.000Z"),
        "07:00 in Tokyo is 22:00 UTC: {due}"
    );
    let (alice, bob) = (for_a_year(&app, &alice).await, for_a_year(&app, &bob).await);
    send_now(&state);
    for _ in 0..3 {
        let game = start_standard_game(&app, &alice, &bob, "bob").await;
        play_all(&app, &game, &alice, &bob, &["d2d4"]).await;
    }
    assert!(send_now(&state).is_empty(), "no mail an event");
    let before = settings(&app, &bob).await;
    clock.advance(DAY);
    assert_eq!(digests_now(&state), 1);
    let sent = send_now(&state);
    assert_eq!(sent.len(), 1);
    let digest = &sent[0].1;
    assert_eq!(digest.subject, "kingpost: your move in 3 games");
    assert!(
        digest.text.contains("JST"),
        "times in Tokyo's zone: {}",
        digest.text
    );
    assert!(digest.text.contains("- Your move against alice: 1. d4"));
    let after = settings(&app, &bob).await;
    assert_ne!(
        after["next_digest_at"], before["next_digest_at"],
        "the next day's"
    );
    assert!(
        after["next_digest_at"]
            .as_str()
            .unwrap()
            .ends_with("T22:00:00.000Z")
    );
}

// README, notifications: the link every notification mail carries
// unsubscribes in one POST without a sign-in; a GET only shows a button;
// a forged link is refused.
async fn one_click_unsubscribes(db: Db) {
    let state = TestApp::on(&db).mail(NOWHERE).state();
    let app = init(state.clone()).await;
    let (alice, bob) = (sign_up(&app, "alice").await, sign_up(&app, "bob").await);
    verified(&app, &state, &bob, "bob@example.org").await;
    send_now(&state);
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let sent = send_now(&state);
    let link = sent[0].1.unsubscribe.clone().unwrap();
    let path = link
        .strip_prefix("http://kingpost.test")
        .unwrap()
        .to_owned();

    let page = get(path.clone()).send(&app).await;
    assert_eq!(page.status.as_u16(), 200);
    assert!(
        settings(&app, &bob).await["email_events"]
            .as_array()
            .unwrap()
            .len()
            > 1
    );
    let forged = path.replace("token=", "token=x");
    post(forged)
        .raw(
            "application/x-www-form-urlencoded",
            "List-Unsubscribe=One-Click",
        )
        .send(&app)
        .await
        .assert_problem(422, "invalid_token");
    let done = post(path)
        .raw(
            "application/x-www-form-urlencoded",
            "List-Unsubscribe=One-Click",
        )
        .send(&app)
        .await;
    assert_eq!(done.status.as_u16(), 200);
    assert_eq!(settings(&app, &bob).await["email_events"], json!([]));
    play_all(&app, &game, &alice, &bob, &["e2e4"]).await;
    assert!(send_now(&state).is_empty());
}

// README, accounts: "forgot password" mails a single-use link, good for an
// hour, to the verified address; the answer is the same for an account,
// an address or nothing found; the reset signs every sign-in out.
async fn a_forgotten_password_is_reset_once_by_its_link(db: Db) {
    let clock = clock();
    let state = TestApp::on(&db).mail(NOWHERE).clock(clock.clone()).state();
    let app = init(state.clone()).await;
    let alice = sign_up(&app, "alice").await;
    verified(&app, &state, &alice, "alice@example.org").await;
    let ask = |login: &str| post("/api/v1/account/password-reset").json(json!({"login": login}));
    for login in ["nobody", "nobody@example.org", "not an address@", "ALICE"] {
        let answer = ask(login).send(&app).await;
        assert_eq!(
            (answer.status.as_u16(), &answer.body),
            (202, &Value::Null),
            "{login}"
        );
    }
    let sent = mails(&state, "reset");
    assert_eq!(sent.len(), 1, "alice's alone");
    assert_eq!(sent[0].0, "alice@example.org");
    let token_of = |text: &str| {
        let at = text.find("/#/reset-password/").unwrap() + "/#/reset-password/".len();
        text[at..].split_whitespace().next().unwrap().to_owned()
    };
    let token = token_of(&sent[0].2);
    let confirm = |token: &str, password: &str| {
        post("/api/v1/account/password-reset/confirm")
            .json(json!({"token": token, "new_password": password}))
    };
    // A bad password leaves the link good.
    confirm(&token, "alice-1234")
        .send(&app)
        .await
        .assert_problem(422, "invalid_password");
    confirm(&token, "a new and long passphrase")
        .send(&app)
        .await
        .assert_status(204);
    confirm(&token, "yet another passphrase")
        .send(&app)
        .await
        .assert_problem(422, "invalid_token");
    get("/api/v1/account")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    sign_in(&app, "alice", "a new and long passphrase").await;

    // By address: two more links make three in the hour; the fourth is
    // withheld, with the same answer.
    for _ in 0..3 {
        ask("alice@example.org").send(&app).await.assert_status(202);
    }
    assert_eq!(mails(&state, "reset").len(), 3);
    let late = token_of(&mails(&state, "reset")[2].2);
    clock.advance(HOUR);
    confirm(&late, "a passphrase too late")
        .send(&app)
        .await
        .assert_problem(422, "invalid_token");
}
