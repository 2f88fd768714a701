//! Reading games: the ETag and `If-None-Match`, and the paged list with
//! "my turn" at a glance.

use kingpost_api::clock::MINUTE;
use serde_json::json;

use actix_web::body::MessageBody;

use crate::{
    on_both_databases,
    support::{
        Db, Served, TestApp, clock, get, init, play_all, post, sign_up, start_standard_game,
    },
};

on_both_databases!(
    etag_and_not_modified,
    listing_and_paging,
    finished_games_newest_first_from_both_sides,
    moves_say_their_kind_and_positions_step_through,
    a_stored_value_nobody_knows_is_an_error_that_names_the_game
);

// A status the code does not know (a bad migration, a hand edit) was read
// as `finished`; now it is an error that names the game and the value, also
// when the game is one row of a list.
async fn a_stored_value_nobody_knows_is_an_error_that_names_the_game(db: Db) {
    use diesel::RunQueryDsl;
    let state = TestApp::on(&db).state();
    let app = init(state.clone()).await;
    let alice = sign_up(&app, "alice").await;
    let bob = sign_up(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let id = game["id"].as_str().unwrap();
    let game_id = id.into();
    let mut conn = state.pool.get().unwrap();
    assert!(kingpost_api::domain::game::find_game(&mut conn, &game_id).is_ok());
    diesel::sql_query(format!(
        "UPDATE games SET status = 'paused' WHERE id = '{id}'"
    ))
    .execute(&mut **conn)
    .unwrap();
    let error = kingpost_api::domain::game::find_game(&mut conn, &game_id).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "internal error: game {id}: Error deserializing field 'status': `paused` is not a game status: expected one of started, finished, aborted, imported"
        )
    );
    let account = get("/api/v1/account").token(&alice).send(&app).await;
    let alice_id = account.body["id"].as_str().unwrap();
    let listed = kingpost_api::domain::game::listing::list(
        &mut conn,
        &alice_id.into(),
        kingpost_api::models::game::Listing::Finished,
        None,
        50,
    )
    .unwrap_err();
    assert!(
        listed.to_string().contains(&format!(
            "game {id}: Error deserializing field 'status': `paused`"
        )),
        "{listed}"
    );
}

// docs/spec/rules.md §6, King to Bunker Leap: with f1 and g1 empty the king may castle
// (`O-O`, king to g1 and rook to f1) or leap to g1 (`Kg1`, the rook left on
// h1): two moves on the same squares, which the legal moves tell apart by
// kind and castling squares; the positions route replays the game with each
// move's kind.
async fn moves_say_their_kind_and_positions_step_through(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = crate::support::start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "bunker-leap",
        json!({"kind": "standard"}),
    )
    .await;
    let moves = ["e4", "e5", "Nf3", "Nf6", "Be2", "Be7"];
    let played = play_all(&app, &game, &alice, &bob, &moves).await;
    let legal = played["legal_moves"].as_array().unwrap();
    let find = |uci: &str| legal.iter().find(|m| m["uci"] == uci).unwrap().clone();
    let castling = find("e1h1");
    assert_eq!(castling["san"], "O-O");
    assert_eq!(castling["kind"], "castling");
    assert_eq!(
        castling["castling"],
        json!({"king_from": "e1", "king_to": "g1", "rook_from": "h1", "rook_to": "f1"})
    );
    let leap = find("e1g1");
    assert_eq!(
        (&leap["san"], &leap["kind"]),
        (&json!("Kg1"), &json!("leap"))
    );
    assert!(leap.get("castling").is_none());
    assert_eq!(find("e1f1")["kind"], "normal");

    let path = format!("/api/v1/games/{}/positions", game["id"].as_str().unwrap());
    let history = get(&path).token(&alice).send(&app).await;
    let positions = history.assert_status(200)["positions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(positions.len(), moves.len() + 1);
    assert_eq!(positions[0]["ply"], 0);
    assert_eq!(positions[0]["fen"], played["initial_fen"]);
    assert!(positions[0].get("move").is_none());
    assert_eq!(positions[6]["fen"], played["fen"]);
    let sans: Vec<&str> = positions[1..]
        .iter()
        .map(|p| p["move"]["san"].as_str().unwrap())
        .collect();
    assert_eq!(sans, moves);
    assert!(positions[1..].iter().all(|p| p["move"]["kind"] == "normal"));
    get(&path)
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
}

async fn etag_and_not_modified(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
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
    let (app, [alice, bob]) = TestApp::on(&db)
        .clock(clock.clone())
        .with_users(["alice", "bob"])
        .await;
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
    let paged = ids_page_by_page(&app, &alice, "/api/v1/games?limit=2").await;
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

// The finished games are read a page along each side's index and merged:
// pages of one and of two, across both colours, hold each finished game of
// the account once, most recently finished first, ties by id.
async fn finished_games_newest_first_from_both_sides(db: Db) {
    let clock = clock();
    let (app, [alice, bob, carol]) = TestApp::on(&db)
        .clock(clock.clone())
        .with_users(["alice", "bob", "carol"])
        .await;
    let resign = |game: &serde_json::Value| {
        post(format!(
            "/api/v1/games/{}/resign",
            game["id"].as_str().unwrap()
        ))
        .token(&alice)
    };
    // Alice White, Black, White, Black; the last two resigned at once.
    let mut finished = Vec::new();
    for (n, (white, black, black_name)) in [
        (&alice, &bob, "bob"),
        (&bob, &alice, "alice"),
        (&alice, &carol, "carol"),
        (&carol, &alice, "alice"),
    ]
    .into_iter()
    .enumerate()
    {
        let game = start_standard_game(&app, white, black, black_name).await;
        resign(&game).send(&app).await.assert_status(200);
        finished.push((n.min(2), game["id"].as_str().unwrap().to_owned()));
        if n < 2 {
            clock.advance(MINUTE);
        }
    }
    start_standard_game(&app, &alice, &bob, "bob").await;
    let others = start_standard_game(&app, &bob, &carol, "carol").await;
    post(format!(
        "/api/v1/games/{}/resign",
        others["id"].as_str().unwrap()
    ))
    .token(&bob)
    .send(&app)
    .await
    .assert_status(200);
    finished.sort_by(|(a_time, a_id), (b_time, b_id)| b_time.cmp(a_time).then(a_id.cmp(b_id)));
    let expected: Vec<String> = finished.into_iter().map(|(_, id)| id).collect();

    for limit in [1, 2, 10] {
        let path = format!("/api/v1/games?status=finished&limit={limit}");
        let paged = ids_page_by_page(&app, &alice, &path).await;
        assert_eq!(paged, expected, "pages of {limit}");
    }
}

/// The ids of the games `path` lists for `token`, following its cursor
/// page by page to the end.
async fn ids_page_by_page<B: MessageBody>(
    app: &impl Served<B>,
    token: &str,
    path: &str,
) -> Vec<String> {
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page_path = match &cursor {
            Some(c) => format!("{path}&cursor={c}"),
            None => path.to_owned(),
        };
        let page = get(page_path).token(token).send(app).await;
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
            None => return paged,
        }
    }
}
