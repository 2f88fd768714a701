//! PGN through the API: export with variant tags, import checked against the
//! rules, the round trip, archives streamed as PGN or NDJSON.

use serde_json::{Value, json};

use actix_web::body::MessageBody;

use crate::{
    on_both_databases,
    support::{
        Db, Served, TestApp, clock, get, init, path_of, post, sign_up_for_a_year, start_game,
    },
};

on_both_databases!(
    an_import_never_keeps_moves_waiting,
    identical_imports_racing_both_succeed,
    imports_take_turns,
    round_trip_for_every_rule_set,
    import_reports_each_bad_game,
    imported_games_export_as_their_source_said,
    live_play_ends_at_fivefold_and_an_import_keeps_what_was_played,
    archives_and_filters,
    pgn_for_clients_that_speak_only_json_and_text,
    variations_nested_256_deep_are_kept,
    a_game_twice_in_a_file_is_filed_twice_and_ids_are_this_servers,
    positions_an_import_left_staged_are_indexed_when_the_server_starts,
    what_was_staged_for_a_deleted_collection_is_never_indexed
);

// A client that sends only JSON imports with `{"pgn": ...}`; one that reads
// only text gets PGN as `text/plain` when its `Accept` asks (the same
// bytes); a JSON body of another shape is a 400 and imports nothing.
async fn pgn_for_clients_that_speak_only_json_and_text(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let pgn = sample_pgn(2, 7);
    let wrong = post("/api/v1/imports")
        .token(&alice)
        .json(json!({"text": pgn}))
        .send(&app)
        .await;
    wrong.assert_problem(400, "malformed_request");
    let report = post("/api/v1/imports?collection=json")
        .token(&alice)
        .json(json!({"pgn": pgn}))
        .send(&app)
        .await;
    let report = report.assert_status(200);
    assert_eq!(
        (&report["read"], &report["imported"]),
        (&json!(2), &json!(2))
    );
    let collections = get("/api/v1/collections").token(&alice).send(&app).await;
    let names: Vec<&Value> = collections.assert_status(200)["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(names, [&json!("json")], "the refused import filed nothing");

    let id = report["games"][0]["id"].as_str().unwrap();
    let path = format!("/api/v1/games/{id}/pgn");
    let as_pgn = get(&path).token(&alice).send(&app).await;
    as_pgn.assert_status(200);
    let as_text = get(&path)
        .token(&alice)
        .header("Accept", "text/plain")
        .send(&app)
        .await;
    as_text.assert_status(200);
    assert_eq!(
        as_pgn.headers.get("content-type").unwrap(),
        "application/x-chess-pgn"
    );
    assert_eq!(
        as_text.headers.get("content-type").unwrap(),
        "text/plain; charset=utf-8"
    );
    assert_eq!(as_text.body, as_pgn.body);
    assert!(as_text.body.as_str().unwrap().contains("[Result "));
}

/// `games` random standard games as PGN, written by `kingpost pgn sample`.
pub fn sample_pgn(games: usize, seed: u64) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kingpost"))
        .args([
            "pgn",
            "sample",
            "--games",
            &games.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn import(token: &str, pgn: String) -> crate::support::Call<'_> {
    post("/api/v1/imports")
        .token(token)
        .raw("application/x-chess-pgn", pgn)
}

/// How many imported games the database holds.
fn imported_games(state: &kingpost_api::state::AppState) -> i64 {
    use diesel::prelude::*;
    use kingpost_api::db::schema::games;
    let mut conn = state.pool.get().unwrap();
    games::table
        .filter(games::imported_by.is_not_null())
        .count()
        .get_result(&mut **conn)
        .unwrap()
}

// An import held the database's writer for its whole length, and other
// players' moves failed behind it. Now it is stored in short batches, so
// moves go on while it is written: some are answered while part of the
// import is stored and part is not.
async fn an_import_never_keeps_moves_waiting(db: Db) {
    let shared = TestApp::on(&db).state();
    let app = init(shared.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let carol = sign_up_for_a_year(&app, "carol").await;
    let stored = || imported_games(&shared);
    let total = 1000;
    let done = std::cell::Cell::new(false);
    let importing = async {
        let report = import(&carol, sample_pgn(total, 7)).send(&app).await;
        done.set(true);
        report
    };
    let moving = async {
        let mut seen_midway = 0;
        // Knights out and back: a dozen plies a game, then a fresh game.
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        while !done.get() {
            let mut game = crate::support::start_standard_game(&app, &alice, &bob, "bob").await;
            for m in cycle.iter().cycle().take(12) {
                let token = if game["turn"] == "white" {
                    &alice
                } else {
                    &bob
                };
                let answer = post(format!("{}/moves", path_of(&game)))
                    .token(token)
                    .json(json!({"move": m, "ply": game["ply"]}))
                    .send(&app)
                    .await;
                game = answer.assert_status(200).clone();
                let now = stored();
                seen_midway += usize::from(0 < now && now < total as i64);
                if done.get() {
                    break;
                }
            }
        }
        seen_midway
    };
    let (report, seen_midway) = futures_util::future::join(importing, moving).await;
    assert_eq!(report.assert_status(200)["imported"], total);
    assert!(
        seen_midway > 0,
        "no move was answered while the import was being stored"
    );
}

// Two identical imports by one account at once, on two instances sharing
// the database (each instance lets an account import once at a time; on
// Postgres truly at once): both succeed, each game stored once, the later
// copy counted a duplicate.
async fn identical_imports_racing_both_succeed(db: Db) {
    let app = TestApp::on(&db).start().await;
    let other = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let pgn = sample_pgn(200, 8);
    let (one, two) = futures_util::future::join(
        import(&alice, pgn.clone()).send(&app),
        import(&alice, pgn).send(&other),
    )
    .await;
    let (one, two) = (
        one.assert_status(200).clone(),
        two.assert_status(200).clone(),
    );
    let count = |report: &Value, field: &str| report[field].as_u64().unwrap();
    assert_eq!(count(&one, "imported") + count(&one, "duplicates"), 200);
    assert_eq!(count(&two, "imported") + count(&two, "duplicates"), 200);
    assert_eq!(count(&one, "imported") + count(&two, "imported"), 200);
}

// One import at a time per account (429), a few per instance (503), and at
// most 10,000 games a request (413).
async fn imports_take_turns(db: Db) {
    let shared = TestApp::on(&db).state();
    let app = init(shared.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let id_of = |token: &str| -> String {
        let payload = token.split('.').nth(1).unwrap();
        use base64::Engine;
        let claims: Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .unwrap(),
        )
        .unwrap();
        claims["sub"].as_str().unwrap().to_owned()
    };
    let one_game = "[Event \"x\"]\n\n1. e4 *\n".to_owned();
    let held = shared.import_slots.acquire(&id_of(&alice)).unwrap();
    let busy = import(&alice, one_game.clone()).send(&app).await;
    busy.assert_problem(429, "rate_limited");
    assert!(busy.headers.get("retry-after").is_some());
    let others: Vec<_> = (1..kingpost_api::budgets::IMPORTS_AT_ONCE)
        .map(|n| {
            shared
                .import_slots
                .acquire(&format!("account {n}"))
                .unwrap()
        })
        .collect();
    let full = import(&alice, one_game.clone()).send(&app).await;
    assert_eq!(full.status.as_u16(), 429, "the account's own cap first");
    drop(held);
    let third = shared.import_slots.acquire("one more").unwrap();
    let full = import(&alice, one_game.clone()).send(&app).await;
    full.assert_problem(503, "service_busy");
    drop((others, third));
    import(&alice, one_game).send(&app).await.assert_status(200);

    // Refused whole: the games before the cap are not stored either.
    let before = imported_games(&shared);
    let too_many: String = (0..=10_000)
        .map(|n| format!("[Event \"x\"]\n[Round \"{n}\"]\n\n1. e4 *\n\n"))
        .collect();
    import(&alice, too_many)
        .send(&app)
        .await
        .assert_problem(413, "payload_too_large");
    assert_eq!(imported_games(&shared), before);
}

/// Plays up to `plies` moves, each picked among the legal moves the game
/// offers by the ply number, alternating players; the game read after.
async fn play_through<B: MessageBody>(
    app: &impl Served<B>,
    game: Value,
    white: &str,
    black: &str,
    plies: usize,
) -> Value {
    let mut game = game;
    for i in 0..plies {
        if game["status"] != "started" {
            break;
        }
        let legal = game["legal_moves"].as_array().unwrap();
        let pick = &legal[(i * 7 + 3) % legal.len()];
        let token = if game["turn"] == "white" {
            white
        } else {
            black
        };
        let answer = post(format!("{}/moves", path_of(&game)))
            .token(token)
            .json(json!({"move": pick["uci"], "ply": game["ply"]}))
            .send(app)
            .await;
        game = answer.assert_status(200).clone();
    }
    // A move's answer has the moves it played; the game read has them all.
    get(path_of(&game))
        .token(white)
        .send(app)
        .await
        .assert_status(200)
        .clone()
}

async fn round_trip_for_every_rule_set(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let starts = [
        ("standard", json!({"kind": "chess960", "id": 421})),
        ("teleporting-kings", json!({"kind": "standard"})),
        ("switching", json!({"kind": "chess960", "id": 7})),
        ("captive-kings", json!({"kind": "standard"})),
        ("bunker-leap", json!({"kind": "prechess"})),
        ("bunker-leap", json!({"kind": "shuffle", "id": 2000})),
    ];
    for (rules, start) in starts {
        let game = start_game(&app, &alice, &bob, "bob", rules, start.clone()).await;
        let played = play_through(&app, game, &alice, &bob, 60).await;
        let exported = get(format!("{}/pgn", path_of(&played))).send(&app).await;
        assert_eq!(exported.status.as_u16(), 200);
        assert_eq!(
            exported.headers.get("content-type").unwrap(),
            "application/x-chess-pgn"
        );
        let pgn = exported.body.as_str().unwrap().to_owned();
        assert!(
            pgn.contains(&format!(
                "[Variant \"{}\"]",
                played["variant"].as_str().unwrap()
            )),
            "{pgn}"
        );
        assert!(pgn.contains("[CorrespondenceDaysPerMove \"3\"]"));
        assert!(pgn.contains(&format!("[PlyCount \"{}\"]", played["ply"])));
        assert!(pgn.contains("{[%ts 2026-11-30T12:00:00Z]}"));
        if start["kind"] != "standard" {
            assert!(
                pgn.contains("[SetUp \"1\"]") && pgn.contains("[FEN \""),
                "{pgn}"
            );
        }
        if let Some(id) = start["id"].as_u64() {
            assert!(pgn.contains(&format!(
                "[StartPosition \"{}:{id}\"]",
                start["kind"].as_str().unwrap()
            )));
        }

        let report = post("/api/v1/imports")
            .token(&alice)
            .raw("application/x-chess-pgn", pgn.clone())
            .send(&app)
            .await;
        let report = report.assert_status(200).clone();
        assert_eq!(report["imported"], 1, "{report:#}");
        let imported = get(format!(
            "/api/v1/games/{}",
            report["games"][0]["id"].as_str().unwrap()
        ))
        .token(&alice)
        .send(&app)
        .await;
        let imported = imported.assert_status(200);
        assert_eq!(imported["status"], "imported");
        assert_eq!(imported["rules"], played["rules"]);
        assert_eq!(imported["fen"], played["fen"], "{rules}");
        assert_eq!(imported["initial_fen"], played["initial_fen"]);
        assert_eq!(
            imported["result"],
            played["result"].as_str().map_or(json!("*"), |r| json!(r))
        );
        let moves = |g: &Value| -> Vec<(Value, Value, Value)> {
            g["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["uci"].clone(), m["san"].clone(), m["played_at"].clone()))
                .collect()
        };
        assert_eq!(
            moves(imported),
            moves(&played),
            "{rules}: same moves, notation and times"
        );

        // The same file again: recognised, not stored twice.
        let again = post("/api/v1/imports")
            .token(&alice)
            .raw("application/x-chess-pgn", pgn)
            .send(&app)
            .await;
        assert_eq!(again.body["duplicates"], 1);
        assert_eq!(again.body["games"][0]["id"], report["games"][0]["id"]);
    }
}

async fn import_reports_each_bad_game(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let file = "[Event \"good\"]\n[White \"Anderssen\"]\n[Black \"Kieseritzky\"]\n\n\
        1. e4 e5 2. f4 exf4 {a comment} 3. Bc4 $1 (3. Nf3 g5) Qh4+ 4. Kf1 *\n\n\
        [Event \"illegal\"]\n\n1. e4 e5 2. Ke3 *\n\n\
        [Event \"unknown variant\"]\n[Variant \"Atomic\"]\n\n1. e4 *\n\n\
        [Event \"broken FEN\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n\n\
        [Event \"switch\"]\n[Variant \"Switching\"]\n[SetUp \"1\"]\n[FEN \"1RB3k1/5ppp/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. Sb8c8# 1-0\n\n\
        [Event \"truncated\"]\n\n1. d4 d5 2. c4 Nf";
    let report = post("/api/v1/imports")
        .token(&alice)
        .raw("application/x-chess-pgn", file)
        .send(&app)
        .await;
    let report = report.assert_status(200);
    assert_eq!(
        (report["imported"].clone(), report["rejected"].clone()),
        (json!(2), json!(4))
    );
    let games = report["games"].as_array().unwrap();
    assert!(games[0]["id"].is_string());
    assert_eq!(games[1]["error"]["ply"], 3);
    assert_eq!(games[1]["error"]["move"], "Ke3");
    assert!(
        games[2]["error"]["reason"]
            .as_str()
            .unwrap()
            .contains("Atomic")
    );
    assert!(
        games[3]["error"]["reason"]
            .as_str()
            .unwrap()
            .contains("FEN")
    );
    assert!(games[4]["id"].is_string(), "the seed's switch form is read");
    assert_eq!(games[5]["error"]["move"], "Nf");
    let good = get(format!(
        "/api/v1/games/{}",
        games[0]["id"].as_str().unwrap()
    ))
    .token(&alice)
    .send(&app)
    .await;
    assert_eq!(good.body["white"]["username"], "Anderssen");
    assert_eq!(good.body["moves"].as_array().unwrap().len(), 7);
    let exported = get(format!(
        "/api/v1/games/{}/pgn",
        games[0]["id"].as_str().unwrap()
    ))
    .token(&alice)
    .send(&app)
    .await;
    assert!(
        exported
            .body
            .as_str()
            .unwrap()
            .starts_with("[Event \"good\"]"),
        "imported tags kept"
    );

    post("/api/v1/imports")
        .raw("application/x-chess-pgn", "1. e4 *")
        .send(&app)
        .await
        .assert_problem(401, "unauthorized");
    let huge = "1. e4 e5 ".repeat(1_000_000);
    post("/api/v1/imports")
        .token(&alice)
        .raw("application/x-chess-pgn", huge)
        .send(&app)
        .await
        .assert_problem(413, "payload_too_large");
}

/// A file of the PGN edge cases of `core/tests/data/pgn-edge`.
fn edge_case(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../core/tests/data/pgn-edge/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The tag pairs of an exported game, in order.
fn tags_of(pgn: &str) -> Vec<(String, String)> {
    pgn.lines()
        .filter_map(|line| line.strip_prefix('[')?.strip_suffix("\"]"))
        .filter_map(|pair| pair.split_once(" \""))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

// Every game of the file is accounted for in the report, named by its
// tags; a game played on past today's automatic draws is kept as played,
// with its recorded result, the import saying where the rules would have
// ended it (docs/spec/rules.md §2.5), and exports say what the source said,
// with the start every reader needs.
async fn imported_games_export_as_their_source_said(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let mut file =
        b"[Event \"Masters\"]\n[Site \"New York\"]\n[Date \"1924.03.21\"]\n[Round \"5\"]\n\
        [White \"R\xe9ti, Richard\"]\n[Black \"Capablanca, Jose Raul\"]\n[Result \"1-0\"]\n\
        [Event \"a second Event\"]\n[ECO \"A15\"]\n[WhiteElo \"2580\"]\n[TimeControl \"40/9000\"]\n\
        [Annotator \"Alekhine\"]\n\n1. Nf3 Nf6 2. c4 g6 1-0\n\n"
            .to_vec();
    for name in [
        "27-chess960-exported-as-standard.pgn",
        "26-captive-kings-standard-export-has-no-FEN.pgn",
        "24-move-after-fivefold.pgn",
        "10-null-move.pgn",
        "15-bad-result-tag.pgn",
        "18-no-tags-two-games.pgn",
    ] {
        file.extend(edge_case(name));
        file.push(b'\n');
    }
    let report = import(&alice, String::new()).raw("application/x-chess-pgn", file);
    let report = report.send(&app).await.assert_status(200).clone();
    assert_eq!(
        [
            &report["read"],
            &report["imported"],
            &report["shortened"],
            &report["rejected"]
        ],
        [&json!(8), &json!(8), &json!(1), &json!(0)],
        "{report:#}"
    );
    let games = report["games"].as_array().unwrap();
    assert_eq!(games[0]["white"], "Réti, Richard");
    assert_eq!(games[0]["event"], "Masters", "the first of repeated tags");
    assert_eq!(
        games[0]["warnings"],
        json!(["the game is not UTF-8: read as Windows-1252"])
    );
    assert_eq!(games[3]["shortened"], json!(null));
    assert_eq!(
        games[3]["warnings"],
        json!([
            "today's rules would have ended the game after ply 16 (1/2-1/2 fivefold_repetition); every move played is kept"
        ])
    );
    // A null move: the game is kept up to it (docs/spec/rules.md §2.5).
    assert_eq!(games[4]["event"], "null");
    assert_eq!(
        games[4]["shortened"],
        json!({"plies": 1, "dropped": 2, "result": null, "reason": "null_move"})
    );
    assert!(
        games[7]["event"].is_null() && games[7]["id"].is_string(),
        "a tagless game"
    );

    let export = async |index: usize| {
        let id = games[index]["id"].as_str().unwrap();
        let answer = get(format!("/api/v1/games/{id}/pgn"))
            .token(&alice)
            .send(&app)
            .await;
        answer.body.as_str().unwrap().to_owned()
    };
    let reti = export(0).await;
    let names: Vec<String> = tags_of(&reti).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names[..8],
        [
            "Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant"
        ],
        "{reti}"
    );
    for tag in [
        "[Event \"Masters\"]",
        "[Date \"1924.03.21\"]",
        "[White \"Réti, Richard\"]",
        "[ECO \"A15\"]",
        "[WhiteElo \"2580\"]",
        "[TimeControl \"40/9000\"]",
        "[Annotator \"Alekhine\"]",
    ] {
        assert!(reti.contains(tag), "{tag} kept:\n{reti}");
    }
    assert_eq!(names.iter().filter(|n| *n == "Event").count(), 1, "{reti}");
    assert!(
        !reti.contains("CorrespondenceDaysPerMove") && !reti.contains("SetUp"),
        "{reti}"
    );

    let chess960 = export(1).await;
    assert!(chess960.contains("[Variant \"Chess960\"]"), "{chess960}");
    assert!(
        chess960.contains("[StartPosition \"chess960:"),
        "{chess960}"
    );

    // A reader that knows no Captive Kings still sets up the right board.
    let captive = export(2).await;
    assert!(captive.contains("[SetUp \"1\"]"), "{captive}");
    assert!(
        captive.contains("[FEN \"rnbqKbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQkBNR w"),
        "the kings exchanged:\n{captive}"
    );

    let fivefold = export(3).await;
    for tag in [
        "[Result \"1-0\"]",
        "[PlyCount \"17\"]",
        "[RulesWouldHaveEnded \"ply 16, 1/2-1/2 fivefold_repetition\"]",
    ] {
        assert!(fivefold.contains(tag), "{tag}:\n{fivefold}");
    }
    assert!(!fivefold.contains("TerminationReason"), "{fivefold}");
    assert!(fivefold.contains("9. e4 1-0"), "{fivefold}");
    // Exported and imported again (by another account, so that it is a
    // game of its own), it is the same game: the note is written anew, not
    // twice.
    let bob = sign_up_for_a_year(&app, "bob").await;
    let again = import(&bob, fivefold.clone()).send(&app).await;
    let again = again.assert_status(200)["games"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(again, games[3]["id"].as_str().unwrap());
    let reexported = get(format!("/api/v1/games/{again}/pgn"))
        .token(&bob)
        .send(&app)
        .await;
    let reexported = reexported.body.as_str().unwrap();
    let without_ids = |pgn: &str| -> Vec<String> {
        pgn.lines()
            .filter(|line| !line.starts_with("[GameId ") && !line.starts_with("[SourceGameId "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(without_ids(reexported), without_ids(&fivefold));
    // Its id here is its own; the one it was exported under is kept.
    let first_id = games[3]["id"].as_str().unwrap();
    assert!(
        reexported.contains(&format!("[GameId \"{again}\"]")),
        "{reexported}"
    );
    assert!(
        reexported.contains(&format!("[SourceGameId \"{first_id}\"]")),
        "{reexported}"
    );

    let bad_result = export(5).await;
    assert!(bad_result.contains("[Result \"*\"]"), "{bad_result}");
    assert!(bad_result.trim_end().ends_with('*'), "{bad_result}");
}

// docs/spec/rules.md §2.3 and §2.5: fivefold repetition draws a game
// played at once; an imported game of the same moves is history, kept as
// played past it with its recorded result, the import saying where the
// rules would have ended it.
async fn live_play_ends_at_fivefold_and_an_import_keeps_what_was_played(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let game = crate::support::start_standard_game(&app, &alice, &bob, "bob").await;
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(4);
    let played = crate::support::play_all(&app, &game, &alice, &bob, &shuffle).await;
    assert_eq!(
        [&played["status"], &played["result"], &played["termination"]],
        [
            &json!("finished"),
            &json!("1/2-1/2"),
            &json!("fivefold_repetition")
        ]
    );
    post(format!("{}/moves", path_of(&played)))
        .token(&alice)
        .json(json!({"move": "e4", "ply": 16}))
        .send(&app)
        .await
        .assert_problem(409, "game_finished");

    let report = import(&alice, String::new())
        .raw(
            "application/x-chess-pgn",
            edge_case("24-move-after-fivefold.pgn"),
        )
        .send(&app)
        .await;
    let entry = report.assert_status(200)["games"][0].clone();
    assert_eq!(entry["shortened"], json!(null));
    let warning = entry["warnings"][0].as_str().unwrap();
    assert!(warning.contains("after ply 16"), "{warning}");
    let imported = get(format!("/api/v1/games/{}", entry["id"].as_str().unwrap()))
        .token(&alice)
        .send(&app)
        .await;
    let imported = imported.assert_status(200);
    assert_eq!(
        [
            &imported["ply"],
            &imported["result"],
            &imported["termination"]
        ],
        [&json!(17), &json!("1-0"), &json!(null)]
    );
}

async fn archives_and_filters(db: Db) {
    let clock = clock();
    let app = TestApp::on(&db).clock(clock.clone()).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let bob = sign_up_for_a_year(&app, "bob").await;
    let mut ids = Vec::new();
    for rules in ["standard", "switching", "standard"] {
        let game = start_game(
            &app,
            &alice,
            &bob,
            "bob",
            rules,
            json!({"kind": "standard"}),
        )
        .await;
        ids.push(game["id"].as_str().unwrap().to_owned());
        clock.advance(kingpost_api::clock::MINUTE);
    }
    post(format!("/api/v1/games/{}/resign", ids[0]))
        .token(&bob)
        .send(&app)
        .await
        .assert_status(200);

    let all = get("/api/v1/users/alice/games.pgn").send(&app).await;
    let text = all.body.as_str().unwrap();
    assert_eq!(text.matches("[Event ").count(), 3);
    let order: Vec<usize> = ids
        .iter()
        .map(|id| text.find(id.as_str()).unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "oldest first");
    let filtered = get("/api/v1/users/alice/games.pgn?rules=switching")
        .send(&app)
        .await;
    assert_eq!(
        filtered.body.as_str().unwrap().matches("[Event ").count(),
        1
    );
    let finished = get("/api/v1/users/bob/games.pgn?finished=true")
        .send(&app)
        .await;
    assert_eq!(
        finished.body.as_str().unwrap().matches("[Event ").count(),
        1
    );
    let capped = get("/api/v1/users/alice/games.pgn?max=2").send(&app).await;
    assert_eq!(capped.body.as_str().unwrap().matches("[Event ").count(), 2);
    let before = get("/api/v1/users/alice/games.pgn?until=2026-11-30")
        .send(&app)
        .await;
    assert_eq!(before.body.as_str().unwrap_or_default(), "");
    get("/api/v1/users/alice/games.pgn?since=yesterday")
        .send(&app)
        .await
        .assert_problem(422, "invalid_query");
    get("/api/v1/users/nobody/games.pgn")
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    let month = get("/api/v1/users/alice/games/2026/11.pgn")
        .send(&app)
        .await;
    assert_eq!(month.body.as_str().unwrap().matches("[Event ").count(), 3);
    let other_month = get("/api/v1/users/alice/games/2026/12.pgn")
        .send(&app)
        .await;
    assert_eq!(other_month.status.as_u16(), 200);
    assert_eq!(other_month.body.as_str().unwrap_or_default(), "");
    get("/api/v1/users/alice/games/2026/13.pgn")
        .send(&app)
        .await
        .assert_problem(404, "not_found");

    let ndjson = get("/api/v1/users/alice/games.pgn")
        .header("Accept", "application/x-ndjson")
        .send(&app)
        .await;
    assert_eq!(
        ndjson.headers.get("content-type").unwrap(),
        "application/x-ndjson"
    );
    let lines: Vec<Value> = ndjson
        .body
        .as_str()
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], ids[0].as_str());
    assert_eq!(lines[0]["termination"], "resignation");
}

// README, annotations: variations nested to 256 levels are kept through
// import, storage and export; deeper ones are left out, each counted.
async fn variations_nested_256_deep_are_kept(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let nested = |depth: usize| {
        format!(
            "[Event \"deep {depth}\"]\n\n1. e4 {}{} e5 *\n\n",
            "(1. d4 ".repeat(depth),
            ")".repeat(depth)
        )
    };
    let report = import(&alice, nested(256) + &nested(261)).send(&app).await;
    let report = report.assert_status(200).clone();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games[0]["warnings"], json!([]), "{report:#}");
    assert_eq!(
        games[1]["warnings"],
        json!(["5 variation(s) left out: nested deeper than 256, or with no move to replace"])
    );
    for (game, depth) in games.iter().zip([256, 256]) {
        let id = game["id"].as_str().unwrap();
        let pgn = get(format!("/api/v1/games/{id}/pgn"))
            .token(&alice)
            .send(&app)
            .await;
        let pgn = pgn.body.as_str().unwrap();
        assert_eq!(pgn.matches('(').count(), depth, "{}", &pgn[..200]);
        assert_eq!(pgn.matches(')').count(), depth);
    }
}

// README, PGN: a game a file holds twice is filed twice (importing the file
// again files nothing more); the source's `GameId` never stands for this
// server's id in an export: it is kept as `SourceGameId`.
async fn a_game_twice_in_a_file_is_filed_twice_and_ids_are_this_servers(db: Db) {
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let twice = "[Event \"Club\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 *\n\n";
    let with_id =
        "[Event \"Online\"]\n[White \"C\"]\n[Black \"D\"]\n[GameId \"abcd1234\"]\n\n1. d4 *\n\n";
    let file = format!("{twice}{with_id}{twice}");
    let first = import(&alice, file.clone()).send(&app).await;
    let first = first.assert_status(200).clone();
    assert_eq!(
        [&first["imported"], &first["duplicates"]],
        [&json!(3), &json!(0)],
        "{first:#}"
    );
    let ids: Vec<&str> = first["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_ne!(ids[0], ids[2], "the game twice is two games");
    let collection = first["collection_id"].as_str().unwrap();
    let filed = get(format!("/api/v1/collections/{collection}/games"))
        .token(&alice)
        .send(&app)
        .await;
    assert_eq!(
        filed.assert_status(200)["games"].as_array().unwrap().len(),
        3
    );

    let again = import(&alice, file).send(&app).await;
    let again = again.assert_status(200).clone();
    assert_eq!(
        [&again["imported"], &again["duplicates"]],
        [&json!(0), &json!(3)],
        "{again:#}"
    );
    let again_ids: Vec<&str> = again["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(again_ids, ids, "each found again as itself");

    let pgn = get(format!("/api/v1/games/{}/pgn", ids[1]))
        .token(&alice)
        .send(&app)
        .await;
    let pgn = pgn.body.as_str().unwrap();
    assert!(pgn.contains(&format!("[GameId \"{}\"]", ids[1])), "{pgn}");
    assert!(pgn.contains("[SourceGameId \"abcd1234\"]"), "{pgn}");
    assert_eq!(pgn.matches("GameId").count(), 2, "{pgn}");
}

/// README, PGN: a bulk import (a thousand new games or more) brings
/// Postgres's planner statistics up to date, which autovacuum would reach
/// only once a tenth of a table changed. Postgres alone: SQLite's planner
/// runs without statistics.
#[actix_web::test]
async fn a_bulk_import_refreshes_the_planners_statistics() {
    use diesel::{QueryableByName, RunQueryDsl, sql_types::BigInt};
    let Some(db) = Db::postgres() else { return };
    let state = TestApp::on(&db).state();
    let app = crate::support::init(state.clone()).await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    #[derive(QueryableByName)]
    struct Analyzed {
        #[diesel(sql_type = BigInt)]
        analyze_count: i64,
    }
    // Manual analyses only: autovacuum's are counted apart.
    let analyzed = || {
        let mut conn = state.pool.get().unwrap();
        diesel::sql_query(
            "SELECT analyze_count FROM pg_stat_user_tables \
             WHERE relname = 'game_positions' AND schemaname = current_schema()",
        )
        .get_result::<Analyzed>(&mut **conn)
        .unwrap()
        .analyze_count
    };
    import(&alice, sample_pgn(20, 5))
        .send(&app)
        .await
        .assert_status(200);
    assert_eq!(
        analyzed(),
        0,
        "a few games leave the statistics to autovacuum"
    );
    let report = import(&alice, sample_pgn(1_000, 6)).send(&app).await;
    assert_eq!(report.assert_status(200)["imported"], 1_000);
    // The statistics view hears of an analysis once its backend flushes its
    // counts (at most a second apart, later on a busy machine).
    let waited = std::time::Instant::now();
    while analyzed() == 0 && waited.elapsed() < std::time::Duration::from_secs(15) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(analyzed(), 1);
}

/// Every row of the position index.
fn index_rows(
    conn: &mut kingpost_api::db::DbConnection,
) -> Vec<kingpost_api::models::position_index::PositionRow> {
    use diesel::prelude::*;
    use kingpost_api::{db::schema::game_positions, models::position_index::PositionRow};
    game_positions::table
        .select((
            game_positions::position_key,
            game_positions::game_id,
            game_positions::next,
            game_positions::ply,
        ))
        .load::<(i64, String, i16, i32)>(conn)
        .unwrap()
        .into_iter()
        .map(|(position_key, game_id, next, ply)| PositionRow {
            position_key,
            game_id: game_id.into(),
            next,
            ply,
        })
        .collect()
}

/// docs/spec/packed-moves.md, the position index: a bulk import stages its
/// games' positions (and their explorer counts) and indexes them at its
/// end; those of one that stopped before its end are indexed (and counted)
/// when a server starts, each once.
async fn positions_an_import_left_staged_are_indexed_when_the_server_starts(db: Db) {
    use diesel::prelude::*;
    use kingpost_api::{
        db::{
            DbConnection,
            schema::{explorer_counts, game_positions, staged_positions},
        },
        models::{
            explorer_counts::{self as counts, CountRow},
            position_index,
        },
    };
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    // Random games, and one that leaves the start twice, by two moves.
    let file = sample_pgn(20, 3) + "\n[Result \"1-0\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. e4 1-0\n";
    import(&alice, file).send(&app).await.assert_status(200);
    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    let count = |conn: &mut DbConnection| -> (i64, i64) {
        (
            game_positions::table.count().get_result(conn).unwrap(),
            staged_positions::table.count().get_result(conn).unwrap(),
        )
    };
    let (indexed, _) = count(conn);
    assert!(indexed > 20 * 40, "{indexed} positions");
    // As an import stopped before its end leaves them: its games stored,
    // their positions staged and not in the index.
    let rows = index_rows(conn);
    type Counts = Vec<(String, String, i64, i16, i64, i64, i64, i64)>;
    let counted = |conn: &mut DbConnection| -> Counts {
        explorer_counts::table
            .order((
                explorer_counts::scope,
                explorer_counts::rules,
                explorer_counts::position_key,
                explorer_counts::next,
            ))
            .load(conn)
            .unwrap()
    };
    let batch_by_batch = counted(conn);
    assert!(
        batch_by_batch.iter().any(|row| row.3 == -1),
        "a game left a position by two moves"
    );
    diesel::delete(game_positions::table).execute(conn).unwrap();
    diesel::delete(explorer_counts::table)
        .execute(conn)
        .unwrap();
    position_index::stage(conn, &rows).unwrap();
    // Staged in two halves, as two batches would: the merge sums them.
    let staged: Vec<CountRow> = batch_by_batch
        .iter()
        .flat_map(|row| {
            let (scope, rules, position_key, next) = (&row.0, &row.1, row.2, row.3);
            let rules = rules.parse::<kingpost_core::Rules>().unwrap().key();
            let half = |n: i64, first: bool| if first { n / 2 } else { n - n / 2 };
            [true, false].map(|first| CountRow {
                scope: scope.clone(),
                rules,
                position_key,
                next,
                games: half(row.4, first),
                white: half(row.5, first),
                draws: half(row.6, first),
                black: half(row.7, first),
            })
        })
        .collect();
    counts::stage(conn, &staged).unwrap();
    assert_eq!(count(conn), (0, indexed));
    drop(pooled);

    let restarted = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut conn = restarted.get().unwrap();
    assert_eq!(count(&mut conn), (indexed, 0));
    let merged = counted(&mut conn);
    assert!(!counts::any_staged(&mut conn).unwrap(), "merged");
    assert_eq!(merged.len(), batch_by_batch.len());
    assert!(
        merged == batch_by_batch,
        "the staged counts merged as counted"
    );
}

/// docs/spec/packed-moves.md, the position index and the explorer's
/// counts: the positions and counts an import staged (a CLI import under
/// way) for a collection deleted before they were merged never reach the
/// index or the explorer.
async fn what_was_staged_for_a_deleted_collection_is_never_indexed(db: Db) {
    use diesel::prelude::*;
    use kingpost_api::{
        db::{
            DbConnection,
            schema::{explorer_counts, game_positions, games, staged_counts, staged_positions},
        },
        models::{
            explorer_counts::{self as counts, CountRow},
            position_index,
        },
    };
    let app = TestApp::on(&db).start().await;
    let alice = sign_up_for_a_year(&app, "alice").await;
    let kept = import(&alice, sample_pgn(3, 11)).send(&app).await;
    kept.assert_status(200);
    let gone = post("/api/v1/imports?collection=Gone")
        .token(&alice)
        .raw("application/x-chess-pgn", sample_pgn(4, 12))
        .send(&app)
        .await;
    let gone_id = gone.assert_status(200)["collection_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let pool = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    let indexed_before: i64 = game_positions::table.count().get_result(conn).unwrap();
    // Staged again, as an import that has not reached its end holds them:
    // the deleted collection's games' positions and its counts.
    let gone_games: Vec<String> = gone.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| game["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(gone_games.len(), 4);
    let mut rows = index_rows(conn);
    rows.retain(|row| gone_games.iter().any(|id| id == row.game_id.as_str()));
    assert!(rows.len() > 4 * 40, "{} positions", rows.len());
    let staged: Vec<CountRow> = explorer_counts::table
        .filter(explorer_counts::scope.eq(&gone_id))
        .load::<(String, String, i64, i16, i64, i64, i64, i64)>(conn)
        .unwrap()
        .into_iter()
        .map(|row| CountRow {
            scope: row.0,
            rules: row.1.parse::<kingpost_core::Rules>().unwrap().key(),
            position_key: row.2,
            next: row.3,
            games: row.4,
            white: row.5,
            draws: row.6,
            black: row.7,
        })
        .collect();
    assert!(!staged.is_empty());
    position_index::stage(conn, &rows).unwrap();
    counts::stage(conn, &staged).unwrap();

    crate::support::delete(format!("/api/v1/collections/{gone_id}"))
        .token(&alice)
        .send(&app)
        .await
        .assert_status(204);
    drop(pooled);
    let restarted = kingpost_api::server::open_database(&db.url()).unwrap();
    let mut pooled = restarted.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    let left = |conn: &mut DbConnection| -> (i64, i64) {
        (
            staged_positions::table.count().get_result(conn).unwrap(),
            staged_counts::table.count().get_result(conn).unwrap(),
        )
    };
    assert_eq!(left(conn), (0, 0), "nothing left staged");
    let orphans: i64 = game_positions::table
        .filter(diesel::dsl::not(diesel::dsl::exists(
            games::table.filter(games::id.eq(game_positions::game_id)),
        )))
        .count()
        .get_result(conn)
        .unwrap();
    assert_eq!(orphans, 0, "no index row of a deleted game");
    let indexed_after: i64 = game_positions::table.count().get_result(conn).unwrap();
    assert_eq!(indexed_after, indexed_before - rows.len() as i64);
    let gone_counts: i64 = explorer_counts::table
        .filter(explorer_counts::scope.eq(&gone_id))
        .count()
        .get_result(conn)
        .unwrap();
    assert_eq!(gone_counts, 0, "no count of the deleted collection");
}
