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

// docs/spec/rules.md §5, §6.2, §6.3 and §8: each rule set with a
// once-per-game right says where each side stands with it; Pre-chess's leap
// comes only with the array; the rule sets without one say nothing.
#[actix_web::test]
async fn each_side_stands_with_its_right_in_words_a_client_needs_no_fen_for() {
    let db = Db::sqlite();
    let app = init(TestApp::on(&db).state()).await;
    let captive = "rnbqKbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQkBNR w KQkq - 0 1";
    let captive = analyze(json!({"rules": "captive-kings", "fen": captive, "moves": ["e4", "e5"]}))
        .send(&app)
        .await;
    let rights = &captive.assert_status(200)["rights"];
    assert_eq!(rights["right"], "captivity");
    assert_eq!(
        (rights["white"].as_str(), rights["black"].as_str()),
        (Some("held"), Some("held"))
    );
    assert!(rights["summary"].as_str().unwrap().contains("rank 1"));

    let placing = "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1";
    let placing = analyze(json!({"rules": "bunker-leap", "fen": placing, "moves": ["K@e1"]}))
        .send(&app)
        .await;
    let rights = &placing.assert_status(200)["rights"];
    assert_eq!(rights["right"], "leap");
    assert_eq!(rights["white"], "after_placement");

    let leap = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 Ll";
    let leap = analyze(json!({"rules": "bunker-leap", "fen": leap, "moves": ["e1g1"]}))
        .send(&app)
        .await;
    let rights = &leap.assert_status(200)["rights"];
    assert_eq!(
        (rights["white"].as_str(), rights["black"].as_str()),
        (Some("spent"), Some("held"))
    );

    let plain = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    let plain = analyze(json!({"rules": "switching", "fen": plain}))
        .send(&app)
        .await;
    assert_eq!(plain.assert_status(200)["rights"], json!(null));
}
