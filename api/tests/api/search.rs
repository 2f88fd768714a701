//! The archive searched by position: what is found, for whom, and paging.

use actix_web::body::MessageBody;
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{
        Db, Served, TestApp, clock, delete, get, init, path_of, play_all, post, sign_up_for_a_year,
        start_standard_game,
    },
};

on_both_databases!(
    games_are_found_by_a_position_they_reached,
    games_are_named_by_their_opening,
    the_explorer_counts_moves_and_results,
    games_are_found_by_their_data,
    search_results_export_as_pgn,
    searches_explorer_and_exports_take_turns,
    a_partial_date_falls_within_every_period_it_may_be,
    the_explorer_counts_a_game_once_however_often_it_stood_there,
    a_games_own_eco_and_opening_are_searched_as_written,
    a_player_is_found_however_a_file_spells_the_name
);

/// Imported games: the position after 1.e4 e5 2.Nf3 reached directly, by
/// transposition, twice, not at all, and under another rule set.
const STUDY: &str = "\
[Event \"direct\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
[Event \"transposed\"]\n[White \"C\"]\n[Black \"D\"]\n\n1. Nf3 e5 2. e4 Nc6 *\n\n\
[Event \"twice\"]\n[White \"E\"]\n[Black \"F\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Ng1 Ng8 4. Nf3 *\n\n\
[Event \"elsewhere\"]\n[White \"G\"]\n[Black \"H\"]\n\n1. d4 d5 *\n\n\
[Event \"switching\"]\n[Variant \"Switching\"]\n[White \"I\"]\n[Black \"J\"]\n\n1. e4 e5 2. Nf3 *\n\n";

fn search(query: &str) -> String {
    format!("/api/v1/search/positions?{query}")
}

/// The events (or, for played games, "played") and plies of a page.
fn found(page: &Value) -> Vec<(String, i64)> {
    let mut hits: Vec<(String, i64)> = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            let event = hit["game"]["status"]
                .as_str()
                .filter(|status| *status != "imported")
                .map_or_else(
                    || {
                        let moves = hit["game"]["moves"].as_array().unwrap();
                        // Told apart by their players' names.
                        let white = hit["game"]["white"]["username"].as_str().unwrap();
                        format!("{white}:{}", moves.len())
                    },
                    |_| "played".to_owned(),
                );
            (event, hit["ply"].as_i64().unwrap())
        })
        .collect();
    hits.sort();
    hits
}

/// Every page of a search, `limit` games a page, gathered.
async fn every_page<B: MessageBody>(
    app: &impl Served<B>,
    token: &str,
    query: &str,
    limit: usize,
) -> Vec<(String, i64)> {
    let mut gathered = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = get(format!("{query}&limit={limit}{cursor}"))
            .token(token)
            .send(app)
            .await;
        page.assert_status(200);
        assert!(page.body["games"].as_array().unwrap().len() <= limit);
        gathered.extend(found(&page.body));
        match page.body["next_cursor"].as_str() {
            Some(next) => cursor = format!("&cursor={next}"),
            None => break,
        }
    }
    gathered.sort();
    gathered
}

fn hits(list: &[(&str, i64)]) -> Vec<(String, i64)> {
    let mut hits: Vec<(String, i64)> = list.iter().map(|(e, p)| ((*e).to_owned(), *p)).collect();
    hits.sort();
    hits
}

// A position is found in every game that stood in it, whatever the moves
// that led there (docs/spec/rules.md §2.3, ends of a game: positions are the same when
// placement, side to move and rights are), with the first ply it stood
// there; under the rule set asked for only; among played games and the
// reader's own collections, never another's private one.
async fn games_are_found_by_a_position_they_reached(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    play_all(&app, &game, &alice, &bob, &["e2e4", "e7e5", "g1f3"]).await;
    let report = post("/api/v1/imports?collection=Prep")
        .token(&alice)
        .raw("application/x-chess-pgn", STUDY)
        .send(&app)
        .await;
    assert_eq!(report.assert_status(200)["imported"], 5);
    let collection = report.body["collection_id"].as_str().unwrap().to_owned();

    let after_nf3 = search("rules=standard&moves=e4%20e5%20Nf3");
    let mine = get(after_nf3.as_str()).token(&alice).send(&app).await;
    assert_eq!(
        found(mine.assert_status(200)),
        hits(&[("played", 3), ("A:4", 3), ("C:4", 3), ("E:7", 3)])
    );
    let fen = mine.body["fen"].as_str().unwrap().to_owned();
    let by_fen = get(search(&format!(
        "rules=standard&fen={}",
        fen.replace(' ', "%20")
    )))
    .token(&alice)
    .send(&app)
    .await;
    assert_eq!(found(by_fen.assert_status(200)), found(&mine.body));

    // A position reached twice is found at its first ply.
    let after_e4 = get(search("rules=standard&moves=e4&own=true"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        found(after_e4.assert_status(200)),
        hits(&[("played", 1), ("A:4", 1), ("E:7", 1)])
    );
    let after_nf3_once = get(search("rules=standard&moves=Nf3"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        found(after_nf3_once.assert_status(200)),
        hits(&[("C:4", 1)])
    );

    // Another rule set's games are its own.
    let switching = get(search("rules=switching&moves=e4%20e5%20Nf3"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(found(switching.assert_status(200)), hits(&[("I:3", 3)]));

    // The start: every game that began there, at ply 0.
    let start = get(search("rules=standard&moves="))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(found(start.assert_status(200)).len(), 5);
    assert!(found(&start.body).iter().all(|(_, ply)| *ply == 0));

    // Others see the played game only, until the collection is public.
    let theirs = get(after_nf3.as_str()).token(&bob).send(&app).await;
    assert_eq!(found(theirs.assert_status(200)), hits(&[("played", 3)]));
    let anyone = get(after_nf3.as_str()).send(&app).await;
    assert_eq!(found(anyone.assert_status(200)), hits(&[("played", 3)]));
    get(search(&format!(
        "rules=standard&moves=e4&collection={collection}"
    )))
    .token(&bob)
    .send(&app)
    .await
    .assert_problem(404, "not_found");
    crate::support::Call::new(
        actix_web::http::Method::PATCH,
        format!("/api/v1/collections/{collection}"),
    )
    .token(&alice)
    .json(json!({"visibility": "public"}))
    .send(&app)
    .await
    .assert_status(200);
    let now_public = get(after_nf3.as_str()).token(&bob).send(&app).await;
    assert_eq!(found(now_public.assert_status(200)), found(&mine.body));
    let in_collection = get(search(&format!(
        "rules=standard&moves=e4%20e5%20Nf3&collection={collection}"
    )))
    .send(&app)
    .await;
    assert_eq!(
        found(in_collection.assert_status(200)),
        hits(&[("A:4", 3), ("C:4", 3), ("E:7", 3)])
    );
    let own = get(format!("{after_nf3}&own=true"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(found(own.assert_status(200)), hits(&[("played", 3)]));

    // Pages follow each other by cursor, each game once: of moves found
    // along the position index, and of starts (where two lists merge).
    assert_eq!(
        every_page(&app, &alice, &after_nf3, 1).await,
        found(&mine.body)
    );
    let start_query = search("rules=standard&moves=");
    assert_eq!(
        every_page(&app, &alice, &start_query, 2).await,
        found(&start.body)
    );

    for (query, code) in [
        ("rules=standard&fen=nonsense", "invalid_fen"),
        ("rules=standard&moves=e5", "invalid_query"),
        ("rules=standard&moves=e4&fen=x", "invalid_query"),
        ("rules=chesslike&moves=e4", "unknown_rules"),
        ("rules=standard&moves=e4&limit=0", "invalid_query"),
    ] {
        get(search(query))
            .token(&alice)
            .send(&app)
            .await
            .assert_problem(422, code);
    }
}

// A standard game takes the name of the deepest named position it has
// reached, from the lichess opening tables, move by move; its view, its PGN
// (`ECO`, `Opening`) and an imported game's show it; a game of another rule
// set has none.
async fn games_are_named_by_their_opening(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    assert_eq!(game["opening"], Value::Null);
    let after = play_all(
        &app,
        &game,
        &alice,
        &bob,
        &["e4", "e5", "Nf3", "Nc6", "Bb5"],
    )
    .await;
    assert_eq!(after["opening"], json!({"eco": "C60", "name": "Ruy Lopez"}));
    let after = play_all(&app, &after, &alice, &bob, &["a6", "h3"]).await;
    assert_eq!(
        after["opening"],
        json!({"eco": "C70", "name": "Ruy Lopez: Morphy Defense"}),
        "a move past the tables keeps the last name"
    );
    let id = after["id"].as_str().unwrap();
    let pgn = get(format!("/api/v1/games/{id}/pgn")).send(&app).await;
    let text = pgn.body.as_str().unwrap();
    assert!(text.contains("[ECO \"C70\"]"), "{text}");
    assert!(
        text.contains("[Opening \"Ruy Lopez: Morphy Defense\"]"),
        "{text}"
    );

    let report = post("/api/v1/imports")
        .token(&alice)
        .raw(
            "application/x-chess-pgn",
            "[White \"A\"]\n\n1. d4 d5 2. c4 *\n\n\
             [White \"B\"]\n[Variant \"Switching\"]\n\n1. d4 d5 2. c4 *\n",
        )
        .send(&app)
        .await;
    let collection = report.assert_status(200)["collection_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let games = get(format!("/api/v1/collections/{collection}/games"))
        .token(&alice)
        .send(&app)
        .await;
    let games = games.assert_status(200)["games"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        games[0]["opening"],
        json!({"eco": "D06", "name": "Queen's Gambit"})
    );
    assert_eq!(games[1]["opening"], Value::Null, "Switching is not chess");
    let imported = games[0]["id"].as_str().unwrap();
    let pgn = get(format!("/api/v1/games/{imported}/pgn"))
        .token(&alice)
        .send(&app)
        .await;
    assert!(pgn.body.as_str().unwrap().contains("[ECO \"D06\"]"));
}

/// The moves of an explorer answer: san, games, white, draws, black.
fn tallies(view: &Value) -> Vec<(String, i64, i64, i64, i64)> {
    view["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let n = |field: &str| m[field].as_i64().unwrap();
            (
                m["san"].as_str().unwrap().to_owned(),
                n("games"),
                n("white"),
                n("draws"),
                n("black"),
            )
        })
        .collect()
}

// The explorer answers the moves played from a position, reached by any
// move order (docs/spec/rules.md §2.3, ends of a game: the same position), with how the
// games ended, most played first; under one rule set; never from another's
// private collection; and, of the games played here, the finished ones
// (README, explorer), counted as they finish.
async fn the_explorer_counts_moves_and_results(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    play_all(&app, &game, &alice, &bob, &["e4", "e5", "Nf3"]).await;
    let lines = "\
        [Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
        [Result \"0-1\"]\n\n1. e4 e5 2. Nf3 0-1\n\n\
        [Result \"1/2-1/2\"]\n\n1. e4 e5 2. Bc4 1/2-1/2\n\n\
        [Result \"1-0\"]\n\n1. Nf3 e5 2. e4 Nc6 1-0\n\n\
        [Variant \"Switching\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n";
    let imported = post("/api/v1/imports?collection=Lines")
        .token(&alice)
        .raw("application/x-chess-pgn", lines)
        .send(&app)
        .await;
    let lines_id = imported.assert_status(200)["collection_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let explore = |query: &str| get(format!("/api/v1/explorer?rules=standard&{query}"));

    let under_way = explore("moves=").token(&alice).send(&app).await;
    assert_eq!(
        tallies(under_way.assert_status(200)),
        [
            ("e4".to_owned(), 3, 1, 1, 1),
            ("Nf3".to_owned(), 1, 1, 0, 0)
        ],
        "the played game is under way"
    );
    let resigned = post(format!("{}/resign", path_of(&game)))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(resigned.assert_status(200)["result"], "1-0");

    let start = explore("moves=").token(&alice).send(&app).await;
    assert_eq!(
        tallies(start.assert_status(200)),
        [
            ("e4".to_owned(), 4, 2, 1, 1),
            ("Nf3".to_owned(), 1, 1, 0, 0)
        ]
    );
    assert_eq!(start.body["games"], 5);
    assert_eq!(start.body["white"], 3);
    let open = explore("moves=e4%20e5").token(&alice).send(&app).await;
    assert_eq!(
        tallies(open.assert_status(200)),
        [
            ("Nf3".to_owned(), 3, 2, 0, 1),
            ("Bc4".to_owned(), 1, 0, 1, 0)
        ]
    );
    let transposed = explore("moves=e4%20e5%20Nf3")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        tallies(transposed.assert_status(200)),
        [("Nc6".to_owned(), 1, 1, 0, 0)],
        "reached from 1. Nf3 e5 2. e4"
    );
    let switching = get("/api/v1/explorer?rules=switching&moves=e4%20e5")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        tallies(switching.assert_status(200)),
        [("Nf3".to_owned(), 1, 1, 0, 0)]
    );

    let theirs = explore("moves=e4%20e5").token(&bob).send(&app).await;
    assert_eq!(
        tallies(theirs.assert_status(200)),
        [("Nf3".to_owned(), 1, 1, 0, 0)],
        "the played game only"
    );
    let anyone = explore("moves=e4%20e5").send(&app).await;
    assert_eq!(tallies(anyone.assert_status(200)), tallies(&theirs.body));
    let own = explore("moves=e4%20e5&own=true")
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(
        tallies(own.assert_status(200)),
        tallies(&theirs.body),
        "bob's own: the game he played"
    );
    let alices = explore("moves=e4%20e5&own=true")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(tallies(alices.assert_status(200)), tallies(&open.body));
    let collected = explore(&format!("moves=e4%20e5&collection={lines_id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        tallies(collected.assert_status(200)),
        [
            ("Nf3".to_owned(), 2, 1, 0, 1),
            ("Bc4".to_owned(), 1, 0, 1, 0)
        ],
        "the collection's games only"
    );

    delete(format!("/api/v1/collections/{lines_id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    let after = explore("moves=e4%20e5").token(&alice).send(&app).await;
    assert_eq!(
        tallies(after.assert_status(200)),
        tallies(&theirs.body),
        "a deleted collection's games are no longer counted"
    );
}

/// A query string of `pairs`, encoded.
fn encoded(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The White players of the first page a search by data finds, sorted.
async fn found_whites<B: MessageBody>(
    app: &impl Served<B>,
    token: &str,
    pairs: &[(&str, &str)],
) -> Vec<String> {
    let answer = get(format!("/api/v1/search/games?{}", encoded(pairs)))
        .token(token)
        .send(app)
        .await;
    let mut whites = whites_of(answer.assert_status(200));
    whites.sort();
    whites
}

/// The White players of a page of found games, in its order.
fn whites_of(page: &Value) -> Vec<String> {
    page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["white"]["username"].as_str().unwrap().to_owned())
        .collect()
}

// Games are found by their own data: players (in any case, as either
// colour, against an opponent), rule set, result, ECO code or its start,
// words of the opening's name, the day played (an imported game's Date
// tag, partial dates within their year or month), the number of plies;
// newest first, paged, and never from another's private collection.
async fn games_are_found_by_their_data(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    play_all(&app, &game, &alice, &bob, &["e4", "e5", "Nf3"]).await;
    clock.advance(kingpost_api::clock::MINUTE);
    let study = "\
        [White \"Carlsen, Magnus\"]\n[Black \"Anand, Viswanathan\"]\n[Date \"2014.11.09\"]\n[Result \"1/2-1/2\"]\n\n\
        1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 1/2-1/2\n\n\
        [White \"Anand, Viswanathan\"]\n[Black \"Carlsen, Magnus\"]\n[Date \"2014.11.??\"]\n[Result \"0-1\"]\n\n\
        1. d4 d5 2. c4 0-1\n\n\
        [White \"Kasparov\"]\n[Black \"Karpov\"]\n[Date \"1985.??.??\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
        [White \"Carlsen, Magnus\"]\n[Black \"X\"]\n[Variant \"Switching\"]\n[Date \"2020.01.01\"]\n\n1. e4 *\n";
    post("/api/v1/imports?collection=Study")
        .token(&alice)
        .raw("application/x-chess-pgn", study)
        .send(&app)
        .await
        .assert_status(200);
    let carlsen = "Carlsen, Magnus";
    let find = |pairs: &[(&str, &str)]| get(format!("/api/v1/search/games?{}", encoded(pairs)));
    let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();

    assert_eq!(
        found_whites(&app, &alice, &[("player", "carlsen, MAGNUS")]).await,
        names(&["Anand, Viswanathan", carlsen, carlsen])
    );
    assert_eq!(
        found_whites(
            &app,
            &alice,
            &[("player", carlsen), ("opponent", "anand, viswanathan")]
        )
        .await,
        names(&["Anand, Viswanathan", carlsen])
    );
    assert_eq!(
        found_whites(&app, &alice, &[("player", carlsen), ("rules", "switching")]).await,
        names(&[carlsen])
    );
    assert_eq!(
        found_whites(&app, &alice, &[("result", "0-1")]).await,
        names(&["Anand, Viswanathan"])
    );
    for eco in ["B", "B9", "B90"] {
        assert_eq!(
            found_whites(&app, &alice, &[("eco", eco)]).await,
            names(&[carlsen]),
            "{eco}"
        );
    }
    assert_eq!(
        found_whites(&app, &alice, &[("opening", "NAJDORF")]).await,
        names(&[carlsen])
    );
    // The words of the name in any order, each somewhere in it.
    assert_eq!(
        found_whites(&app, &alice, &[("opening", "najdorf  sicilian")]).await,
        names(&[carlsen])
    );
    assert_eq!(
        found_whites(&app, &alice, &[("opening", "najdorf french")]).await,
        names(&[])
    );
    assert_eq!(
        found_whites(&app, &alice, &[("since", "2014"), ("until", "2015")]).await,
        names(&["Anand, Viswanathan", carlsen])
    );
    assert_eq!(
        found_whites(
            &app,
            &alice,
            &[("since", "2014-11-10"), ("until", "2014-12")]
        )
        .await,
        names(&["Anand, Viswanathan"]),
        "a day unknown counts within its month"
    );
    assert_eq!(
        found_whites(&app, &alice, &[("until", "1986")]).await,
        names(&["Kasparov"])
    );
    assert_eq!(
        found_whites(&app, &alice, &[("min_plies", "10")]).await,
        names(&[carlsen])
    );
    assert_eq!(
        found_whites(&app, &alice, &[("max_plies", "2")]).await,
        names(&[carlsen, "Kasparov"])
    );

    // Bob sees the played game, never alice's private collection.
    assert_eq!(
        found_whites(&app, &bob, &[("player", carlsen)]).await,
        Vec::<String>::new()
    );
    assert_eq!(
        found_whites(&app, &bob, &[("player", "ALICE")]).await,
        names(&["alice"])
    );

    // Newest first, page by page, each game once.
    let mut seen = Vec::new();
    let mut cursor = None::<String>;
    loop {
        let mut pairs = vec![("rules", "standard"), ("limit", "2")];
        if let Some(next) = &cursor {
            pairs.push(("cursor", next));
        }
        let page = find(&pairs).token(&alice).send(&app).await;
        seen.extend(whites_of(page.assert_status(200)));
        match page.body["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(
        seen.last().map(String::as_str),
        Some("alice"),
        "the oldest last: {seen:?}"
    );

    for pairs in [
        vec![("eco", "Z1")],
        vec![("since", "2014/11")],
        vec![("opponent", "Karpov")],
        vec![("result", "2-0")],
        vec![("termination", "boredom")],
    ] {
        find(&pairs)
            .token(&alice)
            .send(&app)
            .await
            .assert_problem(422, "invalid_query");
    }
}

/// The `Event` tags of a PGN file, in order.
fn events(pgn: &str) -> Vec<&str> {
    pgn.lines()
        .filter_map(|line| line.strip_prefix("[Event \"")?.strip_suffix("\"]"))
        .collect()
}

// Search results come as one PGN file too, in the JSON pages' order, read
// a page at a time; the same scopes hold (a private collection of another
// is never in it), and a bad query is refused before the file begins.
async fn search_results_export_as_pgn(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let report = post("/api/v1/imports?collection=Prep")
        .token(&alice)
        .raw("application/x-chess-pgn", STUDY)
        .send(&app)
        .await;
    let collection = report.assert_status(200)["collection_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let query = "rules=standard&moves=e4%20e5%20Nf3";
    let page = get(search(query)).token(&alice).send(&app).await;
    let in_order: Vec<String> = page.assert_status(200)["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["game"]["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(in_order.len(), 3);
    for limit in [1, 20] {
        let file = get(format!(
            "/api/v1/search/positions.pgn?{query}&limit={limit}"
        ))
        .token(&alice)
        .send(&app)
        .await;
        assert_eq!(file.status, 200);
        let text = file.body.as_str().unwrap();
        let ids: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("[GameId \"")?.strip_suffix("\"]"))
            .collect();
        assert_eq!(ids, in_order, "pages of {limit}");
        let mut found = events(text);
        found.sort();
        assert_eq!(found, ["direct", "transposed", "twice"]);
    }
    let theirs = get(format!("/api/v1/search/positions.pgn?{query}"))
        .token(&bob)
        .send(&app)
        .await;
    assert_eq!(theirs.status, 200);
    assert_eq!(
        theirs.body,
        Value::Null,
        "empty: alice's collection is private"
    );
    get(format!(
        "/api/v1/search/positions.pgn?{query}&collection={collection}"
    ))
    .token(&bob)
    .send(&app)
    .await
    .assert_problem(404, "not_found");
    get("/api/v1/search/positions.pgn?rules=standard&fen=nonsense")
        .send(&app)
        .await
        .assert_problem(422, "invalid_fen");

    let by_player = get("/api/v1/search/games.pgn?player=c&limit=1")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(events(by_player.body.as_str().unwrap()), ["transposed"]);
    let newest_first = get("/api/v1/search/games.pgn?rules=standard&own=true&limit=2")
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(events(newest_first.body.as_str().unwrap()).len(), 4);
    get("/api/v1/search/games.pgn?own=true")
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    get("/api/v1/search/games.pgn?eco=Z1")
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
}

// Searches, the explorer and whole-archive exports take turns (README,
// limits): an address has at most two running or waiting, a third being a
// 429 at once; when every turn is taken a read waits, then is a 503 with
// `Retry-After`; a streamed export holds its turn until its last page.
async fn searches_explorer_and_exports_take_turns(db: Db) {
    use std::{sync::Arc, time::Duration};

    use kingpost_api::budgets::ExpensiveReads;

    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut one_at_a_time = TestApp::on(&db).pool(pool).app_state();
    one_at_a_time.expensive = Arc::new(ExpensiveReads::new(1, Duration::from_millis(300)));
    let shared = actix_web::web::Data::new(one_at_a_time);
    let app = init(shared.clone()).await;
    let explore = |from: &str| get("/api/v1/explorer?rules=standard&moves=e4").from(from);

    // The one turn is another address's: a read waits, then is refused.
    let running = shared.expensive.acquire("192.0.2.9").await.unwrap();
    let busy = explore("192.0.2.1:1000").send(&app).await;
    busy.assert_problem(503, "service_busy");
    assert!(busy.headers.get("retry-after").is_some());
    // An address with two reads running or waiting is refused a third.
    let waiting = {
        let reads = shared.expensive.clone();
        actix_web::rt::spawn(async move { reads.acquire("192.0.2.9").await })
    };
    actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    explore("192.0.2.9:1000")
        .send(&app)
        .await
        .assert_problem(429, "rate_limited");
    drop(running);
    let second = waiting.await.unwrap().unwrap();
    drop(second);
    explore("192.0.2.1:1000")
        .send(&app)
        .await
        .assert_status(200);
    let export = get("/api/v1/search/games.pgn")
        .from("192.0.2.1:1000")
        .send(&app)
        .await;
    export.assert_status(200);
    // The export's body is read whole: its turn is given back.
    explore("192.0.2.1:1000")
        .send(&app)
        .await
        .assert_status(200);
}

// README, search: a partial date is every day it may be. A game of 1935
// whose month is unknown falls within every month of 1935 (not on its last
// day alone), one of March 1935 within every day of March, and a date
// without its year within none.
async fn a_partial_date_falls_within_every_period_it_may_be(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let study = "\
        [White \"Year\"]\n[Black \"X\"]\n[Date \"1935.??.??\"]\n\n1. e4 *\n\n\
        [White \"Month\"]\n[Black \"X\"]\n[Date \"1935.03.??\"]\n\n1. e4 *\n\n\
        [White \"Day\"]\n[Black \"X\"]\n[Date \"1935.03.15\"]\n\n1. e4 *\n\n\
        [White \"Unknown\"]\n[Black \"X\"]\n[Date \"????.??.??\"]\n\n1. e4 *\n";
    post("/api/v1/imports?collection=Dates")
        .token(&alice)
        .raw("application/x-chess-pgn", study)
        .send(&app)
        .await
        .assert_status(200);
    let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    for (since, until, expected) in [
        ("1935-01", "1935-02", &["Year"][..]),
        ("1935-12", "1936", &["Year"][..]),
        ("1935-03", "1935-04", &["Day", "Month", "Year"][..]),
        ("1935-03-01", "1935-03-02", &["Month", "Year"][..]),
        ("1935-03-15", "1935-03-16", &["Day", "Month", "Year"][..]),
        ("1934", "1935", &[][..]),
        ("1936", "2100", &[][..]),
        ("0001", "9999", &["Day", "Month", "Year"][..]),
    ] {
        assert_eq!(
            found_whites(&app, &alice, &[("since", since), ("until", until)]).await,
            names(expected),
            "{since} to {until}"
        );
    }
    assert_eq!(
        found_whites(&app, &alice, &[]).await,
        names(&["Day", "Month", "Unknown", "Year"]),
        "without a date filter, every game"
    );
}

// README, explorer: a game that stood twice on a position counts once for
// each move it played from there, and once in the position's total, even
// when it left by two moves, or began there and came back.
async fn the_explorer_counts_a_game_once_however_often_it_stood_there(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let lines = "\
        [Result \"1-0\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. e4 1-0\n\n\
        [Result \"0-1\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 0-1\n\n";
    post("/api/v1/imports?collection=Returns")
        .token(&alice)
        .raw("application/x-chess-pgn", lines)
        .send(&app)
        .await
        .assert_status(200);
    let start = get("/api/v1/explorer?rules=standard&moves=")
        .token(&alice)
        .send(&app)
        .await;
    let start = start.assert_status(200);
    assert_eq!(
        tallies(start),
        [
            ("Nf3".to_owned(), 2, 1, 0, 1),
            ("e4".to_owned(), 1, 1, 0, 0)
        ]
    );
    assert_eq!(
        [
            &start["games"],
            &start["white"],
            &start["draws"],
            &start["black"]
        ],
        [&json!(2), &json!(1), &json!(0), &json!(1)]
    );
}

// README, search: a game's own ECO and Opening tags are searched as
// written; the opening the tables give its moves is searched on its own.
async fn a_games_own_eco_and_opening_are_searched_as_written(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let najdorf = "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *";
    let study = format!(
        "[White \"Tagged\"]\n[Black \"X\"]\n[ECO \"B92\"]\n[Opening \"Opocensky line, my own name\"]\n\n{najdorf}\n\n\
         [White \"Untagged\"]\n[Black \"X\"]\n[ECO \"?\"]\n\n{najdorf}\n"
    );
    post("/api/v1/imports?collection=Openings")
        .token(&alice)
        .raw("application/x-chess-pgn", study)
        .send(&app)
        .await
        .assert_status(200);
    let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    for (query, expected) in [
        (("eco", "B92"), &["Tagged"][..]),
        (("eco", "B90"), &["Untagged"][..]),
        (("eco", "B9"), &["Tagged", "Untagged"][..]),
        (("computed_eco", "B90"), &["Tagged", "Untagged"][..]),
        (("computed_eco", "B92"), &[][..]),
        (("opening", "own opocensky"), &["Tagged"][..]),
        (("opening", "najdorf"), &["Untagged"][..]),
        (
            ("computed_opening", "najdorf sicilian"),
            &["Tagged", "Untagged"][..],
        ),
    ] {
        assert_eq!(
            found_whites(&app, &alice, &[query]).await,
            names(expected),
            "{query:?}"
        );
    }
    get("/api/v1/search/games?computed_eco=Z1")
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
}

// README, search: a player is found however a file spells the name (the
// surname, then initials or given names; case and accents ignored), and
// the answer says which spellings it found.
async fn a_player_is_found_however_a_file_spells_the_name(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let game = |white: &str, black: &str| {
        format!("[White \"{white}\"]\n[Black \"{black}\"]\n\n1. e4 *\n\n")
    };
    let study = [
        game("Carlsen,M", "Anand, V"),
        game("Anand, Viswanathan", "Carlsen, Magnus"),
        game("CARLSEN,Magnus", "Réti, Richard"),
        game("Carlsen, Henrik", "Reti,R"),
        game("Carlsen", "Nakamura, Hikaru"),
    ]
    .concat();
    post("/api/v1/imports?collection=Spellings")
        .token(&alice)
        .raw("application/x-chess-pgn", study)
        .send(&app)
        .await
        .assert_status(200);
    let search = async |pairs: &[(&str, &str)]| {
        let answer = get(format!("/api/v1/search/games?{}", encoded(pairs)))
            .token(&alice)
            .send(&app)
            .await;
        let answer = answer.assert_status(200).clone();
        let spellings: Vec<String> = answer["spellings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
        (answer["games"].as_array().unwrap().len(), spellings)
    };
    let owned = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        search(&[("player", "Carlsen")]).await,
        (
            5,
            owned(&[
                "CARLSEN,Magnus",
                "Carlsen",
                "Carlsen, Henrik",
                "Carlsen, Magnus",
                "Carlsen,M"
            ])
        )
    );
    assert_eq!(
        search(&[("player", "carlsen, magnus")]).await,
        (
            4,
            owned(&["CARLSEN,Magnus", "Carlsen", "Carlsen, Magnus", "Carlsen,M"])
        ),
        "Henrik is another player; a name without given names may be either"
    );
    assert_eq!(
        search(&[("player", "Reti")]).await,
        (2, owned(&["Reti,R", "Réti, Richard"]))
    );
    assert_eq!(
        search(&[("player", "Carlsen, M"), ("opponent", "Anand")]).await,
        (
            2,
            owned(&[
                "Anand, V",
                "Anand, Viswanathan",
                "Carlsen, Magnus",
                "Carlsen,M"
            ])
        )
    );
    assert_eq!(search(&[("player", "Carl")]).await, (0, vec![]));
    assert_eq!(
        search(&[]).await,
        (5, vec![]),
        "without a player, no spellings"
    );
}
