//! `/positions/analyze` with a line: what an analysis board asks of the
//! server, which keeps every rule (the page keeps none).

use serde_json::{Value, json};

use crate::support::{Db, TestApp, init, post};

fn analyze(body: Value) -> crate::support::Call<'static> {
    post("/api/v1/positions/analyze").json(body)
}

// docs/spec/rules.md §7.1: a line's moves are read in UCI or SAN and given
// back in both, canonical; the answer is the position after them.
#[actix_web::test]
async fn a_line_is_played_from_the_position_and_named_in_both_notations() {
    let db = Db::sqlite();
    let app = init(TestApp::on(&db).state()).await;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let answer =
        analyze(json!({"rules": "standard", "fen": start, "moves": ["e2e4", "e5", "Nf3"]}))
            .send(&app)
            .await;
    let answer = answer.assert_status(200);
    assert_eq!(
        answer["line"],
        json!([
            {"uci": "e2e4", "san": "e4"},
            {"uci": "e7e5", "san": "e5"},
            {"uci": "g1f3", "san": "Nf3"},
        ])
    );
    assert_eq!(
        answer["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    assert_eq!(answer["turn"], "black");
    assert_eq!(answer["legal_moves"].as_array().unwrap().len(), 29);

    // No line: the position itself, and an empty line.
    let alone = analyze(json!({"rules": "standard", "fen": start}))
        .send(&app)
        .await;
    assert_eq!(alone.assert_status(200)["line"], json!([]));
}

// docs/spec/rules.md §3 and §8: a teleport spends the side's teleport, which
// the seventh field of the answer's FEN no longer shows; a second teleport
// of that king is then illegal, and the refusal says which move of the line.
#[actix_web::test]
async fn a_line_keeps_the_rule_sets_rights() {
    let db = Db::sqlite();
    let app = init(TestApp::on(&db).state()).await;
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 Tt";
    let answer = analyze(json!({"rules": "teleporting-kings", "fen": fen, "moves": ["e1a4"]}))
        .send(&app)
        .await;
    let answer = answer.assert_status(200);
    assert_eq!(answer["line"], json!([{"uci": "e1a4", "san": "Ka4"}]));
    assert_eq!(answer["fen"], "4k3/8/8/8/K7/8/8/8 b - - 1 1 t");

    let again = analyze(
        json!({"rules": "teleporting-kings", "fen": fen, "moves": ["e1a4", "e8d8", "a4h4"]}),
    )
    .send(&app)
    .await;
    again.assert_problem(422, "illegal_move");
    let detail = again.body["detail"].as_str().unwrap();
    assert!(detail.starts_with("move 3 of `moves`"), "{detail}");

    let nonsense = analyze(json!({"rules": "standard", "fen": "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "moves": ["Kd1", "zz"]}))
        .send(&app)
        .await;
    nonsense.assert_problem(422, "invalid_move_syntax");
    let detail = nonsense.body["detail"].as_str().unwrap();
    assert!(detail.starts_with("move 2 of `moves`"), "{detail}");
}

// A line past checkmate has nothing to play (docs/spec/rules.md §2.3), and a
// line longer than an analysis needs is refused before any move is read.
#[actix_web::test]
async fn a_line_ends_where_the_game_would() {
    let db = Db::sqlite();
    let app = init(TestApp::on(&db).state()).await;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mate =
        analyze(json!({"rules": "standard", "fen": start, "moves": ["f3", "e5", "g4", "Qh4"]}))
            .send(&app)
            .await;
    let mate = mate.assert_status(200);
    assert_eq!(mate["line"][3]["san"], "Qh4#");
    assert_eq!(mate["legal_moves"], json!([]));
    assert_eq!(
        mate["outcome"],
        json!({"result": "0-1", "termination": "checkmate"})
    );
    let past = analyze(
        json!({"rules": "standard", "fen": start, "moves": ["f3", "e5", "g4", "Qh4", "e4"]}),
    )
    .send(&app)
    .await;
    past.assert_problem(422, "illegal_move");

    let long: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"]
        .iter()
        .copied()
        .cycle()
        .take(604)
        .collect();
    analyze(json!({"rules": "standard", "fen": start, "moves": long}))
        .send(&app)
        .await
        .assert_problem(422, "invalid_body");
}
