//! From registration to the end of a game, for every rule set.

use serde_json::{Value, json};

use actix_web::body::MessageBody;

use crate::{
    on_both_databases,
    support::{Db, Served, TestApp, get, play_all, start_game, start_standard_game},
};

on_both_databases!(
    standard_to_checkmate,
    chess960_game_uses_king_to_rook_castling,
    teleporting_kings_with_a_teleport_to_checkmate,
    switching_mate_by_switch,
    captive_kings_goal_rank,
    bunker_leap_with_a_leap_to_checkmate,
    prechess_placements_then_moves,
);

/// Checks a finished game: result, how it ended, no legal moves left, and
/// that a reader sees the same.
async fn assert_finished<B: MessageBody>(
    app: &impl Served<B>,
    token: &str,
    game: &Value,
    result: &str,
    termination: &str,
) {
    assert_eq!(game["status"], "finished", "{game:#}");
    assert_eq!(game["result"], result);
    assert_eq!(game["termination"], termination);
    assert_eq!(game["legal_moves"], json!([]));
    assert_eq!(game["deadline"], Value::Null);
    let read = get(format!("/api/v1/games/{}", game["id"].as_str().unwrap()))
        .token(token)
        .send(app)
        .await;
    assert_eq!(read.assert_status(200)["result"], result);
}

async fn standard_to_checkmate(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_standard_game(&app, &alice, &bob, "bob").await;
    assert_eq!(game["white"]["username"], "alice");
    assert_eq!(game["ply"], 0);
    assert_eq!(game["legal_moves"].as_array().unwrap().len(), 20);
    assert_eq!(game["variant"], "Standard");
    // UCI and SAN both accepted; the move list echoes both canonically.
    let game = play_all(&app, &game, &alice, &bob, &["f2f3", "e5", "g4", "Qh4"]).await;
    let sans: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap())
        .collect();
    assert_eq!(sans, ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(game["moves"][1]["uci"], "e7e5");
    assert_eq!(game["check"], true);
    assert_finished(&app, &bob, &game, "0-1", "checkmate").await;
}

async fn chess960_game_uses_king_to_rook_castling(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    // Array 518 is the usual one; a Chess960 start still writes castling king-to-rook.
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "standard",
        json!({"kind": "chess960", "id": 518}),
    )
    .await;
    assert_eq!(game["variant"], "Chess960");
    assert_eq!(game["start"], json!({"kind": "chess960", "id": 518}));
    assert_eq!(
        game["initial_fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    let game = play_all(
        &app,
        &game,
        &alice,
        &bob,
        &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "e1g1"],
    )
    .await;
    assert_eq!(
        game["moves"][6]["uci"], "e1h1",
        "king to rook; king to destination read as an alias"
    );
    assert_eq!(game["moves"][6]["san"], "O-O");
}

async fn teleporting_kings_with_a_teleport_to_checkmate(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let fen = "7k/6pp/8/8/8/n7/5PPP/R5K1 w - - 0 1 Tt";
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "teleporting-kings",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    assert_eq!(game["variant"], "Teleporting Kings");
    // docs/spec/rules.md §8: the rights are given as such, not only in FEN.
    assert_eq!(game["rights"]["right"], "teleport");
    assert_eq!(game["rights"]["white"], "held");
    assert_eq!(game["rights"]["black"], "held");
    let game = play_all(&app, &game, &alice, &bob, &["g1d4", "Nb1", "Ra8"]).await;
    assert_eq!(game["rights"]["white"], "spent");
    assert_eq!(game["rights"]["black"], "held");
    assert_eq!(game["moves"][0]["san"], "Kd4");
    assert_eq!(game["moves"][2]["san"], "Ra8#");
    assert!(
        game["fen"].as_str().unwrap().ends_with(" t"),
        "White's teleport is spent"
    );
    assert_finished(&app, &alice, &game, "1-0", "checkmate").await;
}

async fn switching_mate_by_switch(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let fen = "1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1";
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "switching",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    let game = play_all(&app, &game, &alice, &bob, &["Sb8c8"]).await;
    assert_eq!(game["moves"][0]["uci"], "b8c8");
    assert_eq!(game["moves"][0]["san"], "Rb8c8#");
    assert_finished(&app, &bob, &game, "1-0", "checkmate").await;
}

async fn captive_kings_goal_rank(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let start = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "captive-kings",
        json!({"kind": "standard"}),
    )
    .await;
    assert_eq!(
        start["fen"],
        "rnbqKbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQkBNR w KQkq - 0 1 Cc"
    );
    let fen = "8/8/8/8/8/8/3K4/6k1 w - - 0 1 c";
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "captive-kings",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    let game = play_all(&app, &game, &alice, &bob, &["Kd1"]).await;
    assert_eq!(game["moves"][0]["san"], "Kd1#");
    assert_finished(&app, &alice, &game, "1-0", "goal_rank").await;
}

async fn bunker_leap_with_a_leap_to_checkmate(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let fen = "6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1 Ll";
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "bunker-leap",
        json!({"kind": "fen", "fen": fen}),
    )
    .await;
    assert_eq!(game["variant"], "King to Bunker Leap");
    let game = play_all(&app, &game, &alice, &bob, &["e1b1", "Kh8", "Ra8"]).await;
    assert_eq!(game["moves"][0]["san"], "Kb1");
    assert_finished(&app, &alice, &game, "1-0", "checkmate").await;
}

async fn prechess_placements_then_moves(db: Db) {
    let (app, [alice, bob]) = TestApp::on(&db).with_users(["alice", "bob"]).await;
    let game = start_game(
        &app,
        &alice,
        &bob,
        "bob",
        "bunker-leap",
        json!({"kind": "prechess"}),
    )
    .await;
    assert_eq!(
        game["fen"],
        "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1 -"
    );
    let placements =
        "R@a1 R@h8 N@b1 N@g8 B@c1 B@f8 Q@d1 Q@d8 K@e1 K@e8 B@f1 B@c8 N@g1 N@b8 R@h1 R@a8";
    let moves: Vec<&str> = placements.split(' ').chain(["e4", "e5"]).collect();
    let game = play_all(&app, &game, &alice, &bob, &moves).await;
    assert_eq!(
        game["fen"],
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 10 Ll"
    );
    assert_eq!(game["moves"][0]["san"], "R@a1");
    assert_eq!(game["status"], "started");
}
