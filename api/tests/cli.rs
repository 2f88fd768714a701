//! The `kingpost` rules commands, run as a user runs them.

use std::process::{Command, Output};

fn kingpost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kingpost"))
        .args(args)
        .output()
        .expect("kingpost runs")
}

fn stdout(args: &[&str]) -> String {
    let output = kingpost(args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A failing command prints one error line and exits non-zero.
fn error(args: &[&str]) -> String {
    let output = kingpost(args);
    assert!(!output.status.success(), "{args:?} should fail");
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn perft_counts_and_divides() {
    assert_eq!(stdout(&["perft", "--depth", "3"]), "8902\n");
    let divide = stdout(&["perft", "--depth", "2", "--divide"]);
    let lines: Vec<&str> = divide.lines().collect();
    assert_eq!(lines.len(), 20 + 2);
    assert_eq!(lines[0], "a2a3 20");
    assert_eq!(lines[21], "400");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(
        stdout(&["perft", "--fen", kiwipete, "--depth", "2"]),
        "2039\n"
    );
    // Chess960 array 518 is the usual array.
    assert_eq!(
        stdout(&["perft", "--start", "chess960:518", "--depth", "3"]),
        "8902\n"
    );
}

#[test]
fn moves_lists_uci_and_san_sorted() {
    let out = stdout(&["moves", "--fen", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"e1g1 O-O"));
    assert!(lines.contains(&"e1c1 O-O-O"));
    assert!(lines.contains(&"a1a8 Rxa8+"));
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
}

#[test]
fn play_prints_fen_and_outcome() {
    let out = stdout(&["play", "f3", "e7e5", "g4", "Qh4#"]);
    assert_eq!(
        out,
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n0-1 checkmate\n"
    );
    assert_eq!(
        stdout(&["play", "e4"]),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
    );
}

#[test]
fn bad_input_is_one_clear_error() {
    assert!(error(&["moves", "--rules", "atomic"]).contains("unknown rule set `atomic`"));
    assert!(error(&["moves", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]).contains("no king"));
    assert!(
        error(&[
            "moves",
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1"
        ])
        .contains("field 5")
    );
    assert!(error(&["play", "e4", "e4"]).contains("move 2 (e4)"));
    assert!(error(&["play", "f3", "e5", "g4", "Qh4", "a3"]).contains("the game is over"));
    assert!(error(&["perft", "--start", "chess960:960", "--depth", "1"]).contains("959"));
    // Refused before any database is opened.
    assert!(
        error(&[
            "serve",
            "--database-url",
            "postgres://127.0.0.1:1/none",
            "--sqlite-cache-mib",
            "64"
        ])
        .contains("Postgres sizes its own")
    );
    // (Were 0 taken, the Postgres URL would fail the command otherwise.)
    let zero = kingpost(&[
        "serve",
        "--database-url",
        "postgres://127.0.0.1:1/none",
        "--sqlite-cache-mib",
        "0",
    ]);
    assert!(!zero.status.success());
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--sqlite-cache-mib"));
}

#[test]
fn pgn_sample_check_and_import() {
    let dir = std::env::temp_dir().join(format!("kingpost-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.pgn");
    let sample = stdout(&[
        "pgn",
        "sample",
        "--rules",
        "captive-kings",
        "--start",
        "chess960",
        "--games",
        "25",
        "--seed",
        "3",
    ]);
    let mut text = sample.clone().into_bytes();
    text.extend_from_slice(b"[Event \"bad\"]\n\n1. e4 e5 2. Ke3 *\n\n");
    // Not UTF-8 (Latin-1), and a game played on past a fivefold repetition:
    // kept whole, as history (docs/spec/rules.md §2.5), and named.
    text.extend_from_slice(b"[White \"R\xe9ti\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4 1-0\n");
    std::fs::write(&file, &text).unwrap();
    let path = file.to_str().unwrap();

    let output = kingpost(&["pgn", "check", path]);
    assert!(output.status.success());
    let report = String::from_utf8(output.stdout).unwrap();
    assert!(
        report.starts_with("27 games read, 26 valid, 0 shortened, 1 rejected"),
        "{report}"
    );
    assert!(
        report.contains("game 26 (bad): refused: ply 3, `Ke3`"),
        "{report}"
    );
    assert!(
        report.contains("1 games were not UTF-8 and were read as Windows-1252"),
        "{report}"
    );
    assert!(
        report.contains("game 27 (Réti - ?): today's rules would have ended the game after ply 16 (1/2-1/2 fivefold_repetition); every move played is kept"),
        "{report}"
    );
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("27 games read in"),
        "progress and timing on stderr"
    );

    let database = dir.join("import.sqlite3");
    let database = database.to_str().unwrap();
    let refused = error(&[
        "pgn",
        "import",
        path,
        "--owner",
        "archivist",
        "--database-url",
        database,
    ]);
    assert!(refused.contains("no account `archivist`"), "{refused}");
    {
        let pool = kingpost_api::server::open_database(database).unwrap();
        let mut conn = pool.get().unwrap();
        kingpost_api::domain::accounts::create(&mut conn, "archivist".into(), "-".into(), 0)
            .unwrap();
    }
    fn import<'a>(path: &'a str, database: &'a str) -> [&'a str; 7] {
        let owner = ["--owner", "archivist"];
        [
            "pgn",
            "import",
            path,
            owner[0],
            owner[1],
            "--database-url",
            database,
        ]
    }
    let first = stdout(&import(path, database));
    assert!(
        first.starts_with("27 games read, 26 imported, 0 duplicates, 0 shortened, 1 rejected"),
        "{first}"
    );
    // The positions staged as the games were stored are in the index once
    // the import ends (docs/spec/packed-moves.md, the position index).
    {
        use diesel::{SqliteConnection, prelude::*};
        use kingpost_api::db::schema::{game_positions, staged_positions};
        // Opened bare: a server's start would index what was left staged.
        let conn = &mut SqliteConnection::establish(database).unwrap();
        let staged: i64 = staged_positions::table.count().get_result(conn).unwrap();
        let starts: i64 = game_positions::table
            .filter(game_positions::ply.eq(0))
            .count()
            .get_result(conn)
            .unwrap();
        assert_eq!((staged, starts), (0, 26), "every game's start indexed");
    }
    let again = stdout(&import(path, database));
    assert!(
        again.starts_with("27 games read, 0 imported, 26 duplicates, 0 shortened, 1 rejected"),
        "{again}"
    );

    // A game the file holds three times is filed three times, twice in
    // one step of 50 games and once in another (README, import): counted
    // on disk, whatever the file's size; the file again finds each.
    let repeats = dir.join("repeats.pgn");
    let game = "[White \"Again\"]\n\n1. d4 d5 2. c4 *\n\n";
    let between = stdout(&["pgn", "sample", "--games", "60", "--seed", "4"]);
    std::fs::write(&repeats, format!("{game}{game}{between}\n{game}")).unwrap();
    let repeats = repeats.to_str().unwrap();
    let filed = stdout(&import(repeats, database));
    assert!(
        filed.starts_with("63 games read, 63 imported, 0 duplicates"),
        "{filed}"
    );
    let found = stdout(&import(repeats, database));
    assert!(
        found.starts_with("63 games read, 0 imported, 63 duplicates"),
        "{found}"
    );

    // A database that fails mid-import: the summary still accounts for
    // every game read.
    {
        use diesel::{Connection, RunQueryDsl, SqliteConnection};
        let mut conn = SqliteConnection::establish(database).unwrap();
        diesel::sql_query(
            "CREATE TRIGGER full BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'the disk is full'); END",
        )
        .execute(&mut conn)
        .unwrap();
    }
    let other = dir.join("other.pgn");
    std::fs::write(
        &other,
        stdout(&["pgn", "sample", "--games", "5", "--seed", "9"]),
    )
    .unwrap();
    let stopped = kingpost(&import(other.to_str().unwrap(), database));
    assert!(!stopped.status.success());
    let summary = String::from_utf8(stopped.stdout).unwrap();
    assert!(
        summary.starts_with("5 games read, 0 imported, 0 duplicates, 0 shortened, 0 rejected"),
        "{summary}"
    );
    assert!(
        summary.contains("stopped early: 5 games read were not stored"),
        "{summary}"
    );
    assert!(
        String::from_utf8(stopped.stderr)
            .unwrap()
            .contains("the disk is full"),
        "the cause on stderr"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A TRF-2016 report made by another program (bbpPairings' own test of
/// rule C.9, and py4swiss's pairing of its next round, both in the pairing
/// crate's test data) is paired as that program pairs it.
#[test]
fn swiss_pair_reads_another_programs_report() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../pairing/tests/data/bbp/");
    let report = format!("{data}dutch_2025_C9.trf");
    let expected = std::fs::read_to_string(format!("{data}dutch_2025_C9.pairs")).unwrap();
    let ours = stdout(&["swiss", "pair", &report]);
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect()
    };
    assert_eq!(lines(&ours), lines(&expected));
    assert!(error(&["swiss", "pair", "Cargo.toml"]).contains("not a TRF-2016 report"));
}
