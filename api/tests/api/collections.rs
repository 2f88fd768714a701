//! Collections of imported games: filing imports, paging, export, and who
//! may see them.

use actix_web::{body::MessageBody, http::Method};
use serde_json::{Value, json};

use crate::{
    on_both_databases,
    support::{Call, Db, Served, TestApp, delete, get, init, post, sign_up_for_a_year},
};

on_both_databases!(
    imports_are_filed_in_order_and_paged,
    a_private_collection_is_seen_by_its_owner_alone,
    renaming_and_deleting_a_collection,
    an_import_keeps_what_its_file_said_and_reveals_no_other,
    deleting_a_large_collection_never_keeps_moves_waiting,
    a_deletion_gives_the_turn_back_between_portions_of_its_counts
);

/// The collection an import that succeeded filed its games in.
fn collection_of(report: &crate::support::Answer) -> String {
    report.assert_status(200)["collection_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Three short games, told apart by their White players.
fn three_games(tag: &str) -> String {
    ["Anna", "Boris", "Clara"]
        .iter()
        .map(|white| {
            format!(
                "[Event \"{tag}\"]\n[White \"{white}\"]\n[Black \"Zed\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n"
            )
        })
        .collect()
}

fn import<'a>(token: &'a str, collection: Option<&str>, pgn: String) -> Call<'a> {
    let path = match collection {
        Some(name) => format!("/api/v1/imports?collection={}", name.replace(' ', "%20")),
        None => "/api/v1/imports".to_owned(),
    };
    post(path).token(token).raw("application/x-chess-pgn", pgn)
}

fn patch(path: impl Into<String>) -> Call<'static> {
    Call::new(Method::PATCH, path)
}

/// How many of alice's collections a reader is shown.
async fn listed<B: MessageBody>(app: &impl Served<B>, token: Option<&str>) -> usize {
    let call = get("/api/v1/users/alice/collections");
    let call = match token {
        Some(token) => call.token(token),
        None => call,
    };
    let answer = call.send(app).await;
    answer.assert_status(200)["collections"]
        .as_array()
        .unwrap()
        .len()
}

fn whites(page: &Value) -> Vec<String> {
    page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["white"]["username"].as_str().unwrap().to_owned())
        .collect()
}

// An import names its collection, made when new; the games keep the file's
// order, page by cursor, and export as one PGN file in that order. The same
// file again counts duplicates and files nothing twice; an import naming
// none goes to the default collection.
async fn imports_are_filed_in_order_and_paged(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let report = import(&alice, Some("Open games"), three_games("first"))
        .send(&app)
        .await;
    let id = collection_of(&report);
    assert_eq!(report.body["imported"], 3);
    let again = import(&alice, Some("Open games"), three_games("first"))
        .send(&app)
        .await;
    assert_eq!(again.assert_status(200)["duplicates"], 3);
    assert_eq!(again.body["collection_id"], id.as_str());

    let view = get(format!("/api/v1/collections/{id}"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(view.assert_status(200)["name"], "Open games");
    assert_eq!(view.body["games"], 3, "duplicates are not filed twice");
    assert_eq!(view.body["visibility"], "private");

    let first = get(format!("/api/v1/collections/{id}/games?limit=2"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(whites(first.assert_status(200)), ["Anna", "Boris"]);
    let cursor = first.body["next_cursor"].as_str().unwrap().to_owned();
    let second = get(format!(
        "/api/v1/collections/{id}/games?limit=2&cursor={cursor}"
    ))
    .token(&alice)
    .send(&app)
    .await;
    assert_eq!(whites(second.assert_status(200)), ["Clara"]);
    assert_eq!(second.body["next_cursor"], Value::Null);
    assert_eq!(second.body["games"][0]["moves"][2]["san"], "Nf3");

    let pgn = get(format!("/api/v1/collections/{id}/games.pgn"))
        .token(&alice)
        .send(&app)
        .await;
    let text = pgn.body.as_str().unwrap().to_owned();
    let order: Vec<usize> = ["Anna", "Boris", "Clara"]
        .iter()
        .map(|white| text.find(&format!("[White \"{white}\"]")).unwrap())
        .collect();
    assert!(order.is_sorted(), "exported in the file's order: {text}");

    let default = import(&alice, None, three_games("second")).send(&app).await;
    let default_id = collection_of(&default);
    assert_ne!(default_id, id);
    let mine = get("/api/v1/collections").token(&alice).send(&app).await;
    let names: Vec<&str> = mine.assert_status(200)["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Imported games", "Open games"]);
    get(format!("/api/v1/collections/{id}/games?cursor=later"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(422, "invalid_cursor");
}

// A private collection does not exist for anyone but its owner: not to
// another account, not to a reader without a token, in the view, the games,
// the export and the owner's list. Made public, everyone reads it, and only
// its owner changes it. A token that fails is refused, never read as
// anonymous.
async fn a_private_collection_is_seen_by_its_owner_alone(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let report = import(&alice, Some("Secret prep"), three_games("prep"))
        .send(&app)
        .await;
    let id = collection_of(&report);
    let game = report.body["games"][0]["id"].as_str().unwrap().to_owned();
    // Its games too, read by id, are not found by others.
    let paths = [
        format!("/api/v1/collections/{id}"),
        format!("/api/v1/collections/{id}/games"),
        format!("/api/v1/collections/{id}/games.pgn"),
        format!("/api/v1/games/{game}/pgn"),
        format!("/api/v1/games/{game}/annotations"),
    ];
    let with_token = [
        format!("/api/v1/games/{game}"),
        format!("/api/v1/games/{game}/positions"),
    ];
    for path in paths.iter().chain(&with_token) {
        get(path.as_str())
            .token(&bob)
            .send(&app)
            .await
            .assert_problem(404, "not_found");
        get(path.as_str())
            .token(&alice)
            .send(&app)
            .await
            .assert_status(200);
    }
    for path in &paths {
        get(path.as_str())
            .send(&app)
            .await
            .assert_problem(404, "not_found");
    }
    assert_eq!(listed(&app, Some(&bob)).await, 0, "hidden from bob");
    assert_eq!(listed(&app, None).await, 0, "hidden from anyone");
    assert_eq!(listed(&app, Some(&alice)).await, 1, "shown to its owner");
    patch(format!("/api/v1/collections/{id}"))
        .token(&bob)
        .json(json!({"visibility": "public"}))
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    patch(format!("/api/v1/collections/{id}"))
        .token(&alice)
        .json(json!({"visibility": "public"}))
        .send(&app)
        .await
        .assert_status(200);
    for path in paths.iter().chain(&with_token) {
        get(path.as_str())
            .token(&bob)
            .send(&app)
            .await
            .assert_status(200);
    }
    for path in &paths {
        get(path.as_str()).send(&app).await.assert_status(200);
    }
    assert_eq!(listed(&app, None).await, 1);
    patch(format!("/api/v1/collections/{id}"))
        .token(&bob)
        .json(json!({"name": "Mine now"}))
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    delete(format!("/api/v1/collections/{id}"))
        .token(&bob)
        .send(&app)
        .await
        .assert_problem(403, "forbidden");
    get(paths[0].as_str())
        .token("not-a-token")
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
}

// Names are unique among an account's collections and trimmed; the same
// games imported into two collections are two copies, each its
// collection's; deleting a collection deletes its games, and keeps the
// other's copies.
async fn renaming_and_deleting_a_collection(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let made = post("/api/v1/collections")
        .token(&alice)
        .json(json!({"name": "  Endgames  ", "visibility": "public"}))
        .send(&app)
        .await;
    assert_eq!(made.assert_status(201)["name"], "Endgames");
    assert_eq!(made.body["visibility"], "public");
    assert_eq!(made.body["games"], 0);
    post("/api/v1/collections")
        .token(&alice)
        .json(json!({"name": "Endgames"}))
        .send(&app)
        .await
        .assert_problem(409, "collection_name_taken");
    post("/api/v1/collections")
        .token(&alice)
        .json(json!({"name": " "}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_collection_name");

    let one = import(&alice, Some("One"), three_games("shared"))
        .send(&app)
        .await;
    let one_id = collection_of(&one);
    let shared_game = one.body["games"][0]["id"].as_str().unwrap().to_owned();
    let only_here = import(
        &alice,
        Some("One"),
        "[White \"Solo\"]\n\n1. d4 *\n".to_owned(),
    )
    .send(&app)
    .await;
    let solo_game = only_here.assert_status(200)["games"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let two = import(&alice, Some("Two"), three_games("shared"))
        .send(&app)
        .await;
    assert_eq!(two.assert_status(200)["imported"], 3, "{}", two.body);
    let copy = two.body["games"][0]["id"].as_str().unwrap().to_owned();
    assert_ne!(copy, shared_game);
    patch(format!("/api/v1/collections/{one_id}"))
        .token(&alice)
        .json(json!({"name": "Two"}))
        .send(&app)
        .await
        .assert_problem(409, "collection_name_taken");
    let renamed = patch(format!("/api/v1/collections/{one_id}"))
        .token(&alice)
        .json(json!({"name": "Openings"}))
        .send(&app)
        .await;
    assert_eq!(renamed.assert_status(200)["name"], "Openings");
    assert_eq!(renamed.body["games"], 4);

    delete(format!("/api/v1/collections/{one_id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    get(format!("/api/v1/collections/{one_id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get(format!("/api/v1/games/{solo_game}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get(format!("/api/v1/games/{shared_game}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    get(format!("/api/v1/games/{copy}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(200);
}

/// Tags of the game every import of the test below shares: the roster, its
/// moves and a comment.
const ROSTER: &str = "[Event \"Club\"]\n[Site \"Here\"]\n[Date \"2026.01.02\"]\n\
                      [Round \"1\"]\n[White \"Anna\"]\n[Black \"Zed\"]\n[Result \"*\"]\n";
const MOVES: &str = "\n1. e4 {the usual} e5 2. Nf3 *\n";

// An import never tells one account that another holds a game, nor shows
// it another's tags or notes: two accounts importing the same roster, moves
// and comments keep a game each, with exactly the tags their files gave,
// and each keeps its own when the other deletes its copy. An importer's own
// file again is a duplicate; with one tag changed it is another study.
async fn an_import_keeps_what_its_file_said_and_reveals_no_other(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let private = "[MyPrep \"novelty 14...Nh5, do not share\"]\n[Annotator \"A only\"]\n";
    let alices_file = format!("{ROSTER}{private}{MOVES}");
    let hers = import(&alice, Some("Prep"), alices_file.clone())
        .send(&app)
        .await;
    let her_collection = collection_of(&hers);
    let her_game = hers.body["games"][0]["id"].as_str().unwrap().to_owned();

    let bobs_file = format!("{ROSTER}[WhiteElo \"2100\"]\n[BlackElo \"1950\"]\n{MOVES}");
    let his = import(&bob, None, bobs_file).send(&app).await;
    assert_eq!(his.assert_status(200)["imported"], 1);
    assert_eq!(his.body["duplicates"], 0, "{}", his.body);
    let his_game = his.body["games"][0]["id"].as_str().unwrap().to_owned();
    assert_ne!(his_game, her_game, "{}", his.body);
    assert_eq!(his.body["games"][0]["duplicate"], false);

    fn pgn_of<'a>(token: &'a str, game: &str) -> Call<'a> {
        get(format!("/api/v1/games/{game}/pgn")).token(token)
    }
    let his_pgn = pgn_of(&bob, &his_game).send(&app).await;
    let his_pgn = his_pgn.assert_status(200).as_str().unwrap().to_owned();
    assert!(
        !his_pgn.contains("MyPrep") && !his_pgn.contains("A only"),
        "{his_pgn}"
    );
    assert!(his_pgn.contains("[WhiteElo \"2100\"]"), "{his_pgn}");
    assert!(his_pgn.contains("{ the usual }"), "{his_pgn}");
    let her_pgn = pgn_of(&alice, &her_game).send(&app).await;
    let her_pgn = her_pgn.assert_status(200).as_str().unwrap().to_owned();
    assert!(
        her_pgn.contains("[MyPrep \"novelty 14...Nh5, do not share\"]"),
        "{her_pgn}"
    );
    assert!(!her_pgn.contains("WhiteElo"), "{her_pgn}");
    pgn_of(&bob, &her_game)
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    let again = import(&alice, Some("Prep"), alices_file).send(&app).await;
    assert_eq!(again.assert_status(200)["duplicates"], 1);
    assert_eq!(again.body["games"][0]["id"], her_game.as_str());
    let retagged = format!("{ROSTER}[Annotator \"A, later\"]\n{MOVES}");
    let other = import(&alice, Some("Prep"), retagged).send(&app).await;
    assert_eq!(other.assert_status(200)["imported"], 1);

    delete(format!("/api/v1/collections/{her_collection}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    pgn_of(&alice, &her_game)
        .send(&app)
        .await
        .assert_problem(404, "not_found");
    pgn_of(&bob, &his_game).send(&app).await.assert_status(200);
}

// Deleting a collection of a thousand games took the writers' turn for its
// whole length, and moves waited behind it. It is deleted in steps now,
// each ending as soon as a move waits: moves are answered while part of
// the collection is gone and part is not.
async fn deleting_a_large_collection_never_keeps_moves_waiting(db: Db) {
    use diesel::prelude::*;
    use kingpost_api::db::schema::games;

    let shared = TestApp::on(&db).state();
    let app = init(shared.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let total = 1000;
    let report = import(&carol, Some("Big"), crate::pgn::sample_pgn(total, 11))
        .send(&app)
        .await;
    let id = collection_of(&report);
    let stored = || -> i64 {
        let mut conn = shared.pool.get().unwrap();
        games::table
            .filter(games::imported_by.is_not_null())
            .count()
            .get_result(&mut **conn)
            .unwrap()
    };
    assert_eq!(stored(), total as i64);
    let done = std::cell::Cell::new(false);
    let deleting = async {
        let answer = delete(format!("/api/v1/collections/{id}"))
            .token(&carol)
            .send(&app)
            .await;
        done.set(true);
        answer
    };
    let moving = async {
        let mut seen_midway = 0;
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        while !done.get() {
            let mut game = crate::support::start_standard_game(&app, &alice, &bob, "bob").await;
            for m in cycle.iter().cycle().take(12) {
                let token = if game["turn"] == "white" {
                    &alice
                } else {
                    &bob
                };
                let answer = post(format!("{}/moves", crate::support::path_of(&game)))
                    .token(token)
                    .json(json!({"move": m, "ply": game["ply"]}))
                    .send(&app)
                    .await;
                game = answer.assert_status(200).clone();
                let left = stored();
                seen_midway += usize::from(0 < left && left < total as i64);
                if done.get() {
                    break;
                }
            }
        }
        seen_midway
    };
    let (deleted, seen_midway) = futures_util::future::join(deleting, moving).await;
    deleted.assert_status(204);
    assert_eq!(stored(), 0, "every game it alone held is gone");
    assert!(
        seen_midway > 0,
        "no move was answered while the collection was being deleted"
    );
}

// A deletion first deletes the collection's explorer counts, which once
// went 20,000 rows to a statement, holding SQLite's writers' turn for
// about 0.1 s whoever waited. A step now looks at the writers waiting after
// each thousand rows.
async fn a_deletion_gives_the_turn_back_between_portions_of_its_counts(db: Db) {
    use diesel::prelude::*;
    use kingpost_api::{
        db::{Yield, schema::accounts, schema::explorer_counts},
        domain::collections,
    };

    /// A request is always waiting.
    struct AlwaysYield;
    impl Yield for AlwaysYield {
        fn now(&self) -> bool {
            true
        }
    }

    let shared = TestApp::on(&db).state();
    let app = init(shared.clone()).await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let report = import(&carol, Some("Big"), crate::pgn::sample_pgn(100, 5))
        .send(&app)
        .await;
    let id = collection_of(&report);
    let mut conn = shared.pool.get().unwrap();
    let mut counts = || -> i64 {
        explorer_counts::table
            .filter(explorer_counts::scope.eq(&id))
            .count()
            .get_result(&mut **conn)
            .unwrap()
    };
    let before = counts();
    assert!(before > 2_000, "too few counts to show a portion: {before}");
    let mut conn = shared.pool.get().unwrap();
    let owner: String = accounts::table
        .filter(accounts::username.eq("carol"))
        .select(accounts::id)
        .get_result(&mut **conn)
        .unwrap();
    let gone =
        collections::delete_step(&mut conn, &owner.into(), &id.as_str().into(), &AlwaysYield)
            .unwrap();
    drop(conn);
    assert!(
        !gone,
        "a step asked to yield ended before the collection was gone"
    );
    assert_eq!(before - counts(), 1_000, "one portion of counts deleted");
}
