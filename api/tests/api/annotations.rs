//! Annotations: an imported study keeps its comments, NAGs and variations;
//! players annotate their games once they have ended; both export as PGN.

use serde_json::json;

use crate::{
    on_both_databases,
    support::{
        Call, Db, TestApp, delete, get, play_all, post, sign_up_for_a_year, start_standard_game,
    },
};

on_both_databases!(
    an_imported_study_keeps_its_annotations,
    players_annotate_their_finished_games
);

fn put(path: impl Into<String>) -> Call<'static> {
    Call::new(actix_web::http::Method::PUT, path)
}

const STUDY: &str = "[Event \"Study\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Anna\"]\n[Black \"Boris\"]\n[Result \"*\"]\n\n\
    { A study } 1. e4! { [%clk 0:10:00] best by test } (1. d4 d5 (1... Nf6 2. Ke3) 2. c4) \
    1... e5 $14 2. Nf3 ( { or } 2. Nc3) *\n";

// The rule: comments, NAGs and variations are kept, checked under
// the rules (an illegal move inside a variation is reported and the
// variation cut there, the game kept), shown as JSON and written back.
async fn an_imported_study_keeps_its_annotations(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let report = post("/api/v1/imports")
        .token(&alice)
        .raw("application/x-chess-pgn", STUDY)
        .send(&app)
        .await;
    let entry = report.assert_status(200)["games"][0].clone();
    let warnings = entry["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = warnings[0].as_str().unwrap();
    assert!(warning.contains("`Ke3` at ply 3"), "{warning}");
    let id = entry["id"].as_str().unwrap();

    let notes = get(format!("/api/v1/games/{id}/annotations"))
        .token(&alice)
        .send(&app)
        .await;
    let notes = notes.assert_status(200);
    assert_eq!(notes["comment"], "A study");
    assert_eq!(notes["players"], json!([]));
    let moves = notes["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3, "plies 1, 2 and 3 are annotated");
    assert_eq!(moves[0]["ply"], 1);
    assert_eq!(moves[0]["nags"], json!([1]));
    assert_eq!(moves[0]["comment"], "[%clk 0:10:00] best by test");
    let line = &moves[0]["variations"][0];
    assert_eq!(line[0]["san"], "d4");
    assert_eq!(line[0]["uci"], "d2d4");
    assert_eq!(line[1]["variations"][0][0]["san"], "Nf6");
    // Each variation move comes with its position, for a reader without rules.
    let fen = |m: &serde_json::Value| m["fen"].as_str().unwrap().to_owned();
    assert!(fen(&line[0]).starts_with("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b"));
    assert!(
        fen(&line[1]["variations"][0][0])
            .starts_with("rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w")
    );
    assert!(
        fen(&moves[2]["variations"][0][0])
            .starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b")
    );
    assert_eq!(
        line[1]["variations"][0].as_array().unwrap().len(),
        1,
        "cut before the illegal Ke3"
    );
    assert_eq!(moves[1]["nags"], json!([14]));
    assert_eq!(moves[2]["variations"][0][0]["starting_comment"], "or");

    let pgn = get(format!("/api/v1/games/{id}/pgn"))
        .token(&alice)
        .send(&app)
        .await;
    let pgn = pgn.body.as_str().unwrap();
    let movetext = pgn.split("\n\n").nth(1).unwrap().replace('\n', " ");
    assert_eq!(
        movetext,
        "{ A study } 1. e4 $1 { [%clk 0:10:00] best by test } (1. d4 d5 (1... Nf6) 2. c4) \
         1... e5 $14 2. Nf3 ({ or } 2. Nc3) *"
    );

    // The export read again is the same game, annotations and all.
    let again = post("/api/v1/imports")
        .token(&alice)
        .raw("application/x-chess-pgn", pgn.to_owned())
        .send(&app)
        .await;
    assert_eq!(again.assert_status(200)["duplicates"], 1);
    // The same game annotated otherwise is another study of it.
    let other = STUDY.replace("best by test", "only move");
    let other = post("/api/v1/imports")
        .token(&alice)
        .raw("application/x-chess-pgn", other)
        .send(&app)
        .await;
    assert_eq!(other.assert_status(200)["imported"], 1);
}

// Players annotate a ply of their own game once it has ended; no one else
// may, nor while it is played; the PGN carries each author's comment.
async fn players_annotate_their_finished_games(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    let game = play_all(&app, &game, &alice, &bob, &["e2e4", "e7e5", "g1f3"]).await;
    let id = game["id"].as_str().unwrap();
    let annotate = |token: &'static str, ply: i64, body: serde_json::Value| {
        put(format!("/api/v1/games/{id}/annotations/{ply}"))
            .token(token)
            .json(body)
    };
    let alice: &'static str = Box::leak(alice.into_boxed_str());
    let bob: &'static str = Box::leak(bob.into_boxed_str());
    let carol: &'static str = Box::leak(carol.into_boxed_str());

    annotate(alice, 1, json!({"comment": "as ever"}))
        .send(&app)
        .await
        .assert_problem(409, "game_under_way");
    post(format!("/api/v1/games/{id}/resign"))
        .token(bob)
        .send(&app)
        .await
        .assert_status(200);

    let answer = annotate(
        alice,
        3,
        json!({"comment": " a quiet move ", "nags": [5, 1, 5]}),
    )
    .send(&app)
    .await;
    let written = answer.assert_status(200);
    assert_eq!(written["author"], "alice");
    assert_eq!(written["comment"], "a quiet move");
    assert_eq!(written["nags"], json!([1, 5]));
    annotate(bob, 3, json!({"comment": "I resigned too soon"}))
        .send(&app)
        .await
        .assert_status(200);
    annotate(bob, 0, json!({"comment": "a short game"}))
        .send(&app)
        .await
        .assert_status(200);
    // Written again, an annotation replaces the author's own.
    annotate(alice, 3, json!({"comment": "a quiet move", "nags": [1]}))
        .send(&app)
        .await
        .assert_status(200);

    for (token, ply, body, status, code) in [
        (carol, 1, json!({"comment": "hm"}), 403, "not_a_player"),
        (
            alice,
            4,
            json!({"comment": "no such ply"}),
            422,
            "invalid_annotation",
        ),
        (
            alice,
            -1,
            json!({"comment": "no such ply"}),
            422,
            "invalid_annotation",
        ),
        (
            alice,
            1,
            json!({"comment": "a } ends it"}),
            422,
            "invalid_annotation",
        ),
        (alice, 1, json!({"nags": [0]}), 422, "invalid_annotation"),
        (alice, 1, json!({"nags": [256]}), 422, "invalid_annotation"),
        (alice, 0, json!({"nags": [1]}), 422, "invalid_annotation"),
        (
            alice,
            1,
            json!({"comment": "  "}),
            422,
            "invalid_annotation",
        ),
        (
            alice,
            1,
            json!({"comment": "x".repeat(2001)}),
            422,
            "invalid_annotation",
        ),
        // Text only: NUL and ESC are refused, lines and tabs kept.
        (
            alice,
            1,
            json!({"comment": "nul \u{0} here"}),
            422,
            "invalid_annotation",
        ),
        (
            alice,
            1,
            json!({"comment": "\u{1b}[2J cleared"}),
            422,
            "invalid_annotation",
        ),
    ] {
        annotate(token, ply, body)
            .send(&app)
            .await
            .assert_problem(status, code);
    }
    let kept = annotate(alice, 1, json!({"comment": "two\nlines\tand a tab"}))
        .send(&app)
        .await;
    assert_eq!(kept.assert_status(200)["comment"], "two\nlines\tand a tab");
    crate::support::delete(format!("/api/v1/games/{id}/annotations/1"))
        .token(alice)
        .send(&app)
        .await
        .assert_status(204);
    // A ply that is no number is no ply of the game, as one past its end.
    for method in [
        actix_web::http::Method::PUT,
        actix_web::http::Method::DELETE,
    ] {
        crate::support::Call::new(method, format!("/api/v1/games/{id}/annotations/first"))
            .token(alice)
            .json(json!({"comment": "hm"}))
            .send(&app)
            .await
            .assert_problem(422, "invalid_annotation");
    }

    let view = get(format!("/api/v1/games/{id}/annotations"))
        .send(&app)
        .await;
    let players = view.assert_status(200)["players"]
        .as_array()
        .unwrap()
        .clone();
    let summary: Vec<(i64, &str, &str)> = players
        .iter()
        .map(|a| {
            (
                a["ply"].as_i64().unwrap(),
                a["author"].as_str().unwrap(),
                a["comment"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, "bob", "a short game"),
            (3, "alice", "a quiet move"),
            (3, "bob", "I resigned too soon")
        ]
    );
    let pgn = get(format!("/api/v1/games/{id}/pgn")).send(&app).await;
    let pgn = pgn.body.as_str().unwrap();
    assert!(pgn.contains("{ bob: a short game } 1. e4"), "{pgn}");
    assert!(
        pgn.contains("2. Nf3 $1 {[%ts "),
        "the NAG, then the move's time: {pgn}"
    );
    assert!(
        pgn.contains("{ alice: a quiet move\nbob: I resigned too soon } 1-0"),
        "{pgn}"
    );

    delete(format!("/api/v1/games/{id}/annotations/3"))
        .token(alice)
        .send(&app)
        .await;
    let again = delete(format!("/api/v1/games/{id}/annotations/3"))
        .token(alice)
        .send(&app)
        .await;
    again.assert_problem(404, "not_found");
    let view = get(format!("/api/v1/games/{id}/annotations"))
        .send(&app)
        .await;
    assert_eq!(
        view.assert_status(200)["players"].as_array().unwrap().len(),
        2
    );
}
