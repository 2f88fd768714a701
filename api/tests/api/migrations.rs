//! Migrations that carry data over: a database made before one keeps what
//! it held, on SQLite and on Postgres.

use diesel::{
    ExpressionMethods, QueryDsl, RunQueryDsl, backend::Backend, migration::MigrationSource,
};
use diesel_migrations::{FileBasedMigrations, MigrationHarness};
use kingpost_api::db::{
    self, DbConnection,
    schema::{
        annotations, collection_games, explorer_counts, game_notes, game_positions, games,
        tournaments,
    },
};
use kingpost_api::views::TournamentFormat;
use kingpost_api::{
    domain::{
        game::moves::{pack_legacy_moves, played_moves},
        search::{Scope, Target, explore},
    },
    models::{
        game::{self as stored_games, GameRow},
        legacy_moves,
        search::{Among, PositionQuery, reaching},
    },
};
use kingpost_core::{Position, Rules};

use crate::{on_both_databases, support::Db};

on_both_databases!(
    games_holding_conditional_lines_are_marked,
    an_import_filed_for_two_accounts_becomes_two,
    dates_without_their_year_are_cleared,
    an_imported_games_own_opening_tags_are_read_from_its_source,
    the_names_of_games_stored_before_are_folded_for_search,
    stored_moves_are_packed_and_their_positions_indexed,
    explorer_counts_are_built_and_a_game_filed_twice_copied,
    a_round_robin_made_before_swiss_stays_a_round_robin,
    games_and_tournaments_made_before_event_rules_allow_vacation,
    tournaments_made_before_teams_read_as_they_were,
    a_swiss_under_way_before_stored_pairings_waits_for_its_round_as_before
);

/// Runs the migrations in `dir` older than `version` on `conn`.
fn migrate_before<DB: Backend>(conn: &mut impl MigrationHarness<DB>, dir: &str, version: &str) {
    let path = format!("{}/../migrations/{dir}", env!("CARGO_MANIFEST_DIR"));
    let source = FileBasedMigrations::from_path(path).unwrap();
    let mut migrations = MigrationSource::<DB>::migrations(&source).unwrap();
    migrations.sort_by_key(|m| m.name().version().to_string());
    // A new database (asking makes the table of applied migrations).
    assert!(conn.applied_migrations().unwrap().is_empty());
    for migration in migrations
        .iter()
        .filter(|m| m.name().version().to_string().as_str() < version)
    {
        conn.run_migration(migration).unwrap();
    }
}

/// Makes `conn`'s database as the server before migration `version` did.
fn made_before(conn: &mut DbConnection, version: &str) {
    match conn {
        DbConnection::Sqlite(sqlite) => migrate_before(sqlite, "sqlite", version),
        DbConnection::Postgresql(pg) => migrate_before(pg, "postgres", version),
    }
}

/// The mark a move reads before it reads any lines is set on the games
/// where a player held lines when the server was upgraded, and only there.
async fn games_holding_conditional_lines_are_marked(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261203000019");
    for statement in [
        "INSERT INTO accounts (id, username, username_key, password_hash, created_at) \
         VALUES ('a1', 'alice', 'alice', 'x', 0)",
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, white_name, black_name, days_per_move, created_at, updated_at, turn_started_at) \
         VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 1, 'started', 'w', 'b', 3, 0, 0, 0), \
                ('g2', 'standard', 'standard', 'start', 1, 'now', 1, 'started', 'w', 'b', 3, 0, 0, 0)",
        "INSERT INTO conditionals (game_id, account_id, lines, updated_at) \
         VALUES ('g2', 'a1', '{\"lines\":[]}', 0)",
    ] {
        diesel::sql_query(statement).execute(conn).unwrap();
    }
    db::run_migrations(conn).unwrap();
    let marks: Vec<(String, bool)> = games::table
        .select((games::id, games::holds_conditionals))
        .order(games::id)
        .load(conn)
        .unwrap();
    assert_eq!(marks, [("g1".to_owned(), false), ("g2".to_owned(), true)]);
}

/// A game that two accounts' imports shared (the second account's import
/// of the same roster, moves and notes filed the first's game) becomes a
/// game each: the second's holds the roster and the tags that set the game
/// up, the moves and the notes, never the first's other tags; each
/// collection holds its owner's. Import keys are prefixed by the importer.
async fn an_import_filed_for_two_accounts_becomes_two(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261204000020");
    let tags = r#"[["Event","Club"],["White","Anna"],["MyPrep","do not share"],["Black","Zed"],["Variant","Standard"]]"#;
    for statement in [
        "INSERT INTO accounts (id, username, username_key, password_hash, created_at) \
         VALUES ('a1', 'alice', 'alice', 'x', 0), ('b1', 'bob', 'bob', 'x', 0)"
            .to_owned(),
        format!(
            "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, \
             ply, status, result, white_name, black_name, days_per_move, created_at, \
             updated_at, turn_started_at, imported_by, import_key, source_tags) \
             VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 2, 'imported', '*', \
                     'Anna', 'Zed', 0, 0, 0, 0, 'a1', 'k1', '{tags}'), \
                    ('g2', 'standard', 'standard', 'start', 1, 'now', 0, 'imported', '*', \
                     'Solo', '?', 0, 0, 0, 0, 'a1', 'k2', '[]')"
        ),
        "INSERT INTO moves (game_id, ply, uci, san, position_key, played_at) \
         VALUES ('g1', 1, 'e2e4', 'e4', 11, NULL), ('g1', 2, 'e7e5', 'e5', 12, 5)"
            .to_owned(),
        "INSERT INTO game_notes (game_id, notes) VALUES ('g1', '{\"comment\":\"hi\"}')".to_owned(),
        "INSERT INTO collections (id, owner_id, name, visibility, created_at, updated_at) \
         VALUES ('ca', 'a1', 'Prep', 'private', 0, 0), ('cb', 'b1', 'Mine', 'private', 0, 0)"
            .to_owned(),
        "INSERT INTO collection_games (collection_id, game_id, ord) \
         VALUES ('ca', 'g1', 0), ('ca', 'g2', 1), ('cb', 'g1', 0)"
            .to_owned(),
    ] {
        diesel::sql_query(statement).execute(conn).unwrap();
    }
    db::run_migrations(conn).unwrap();

    let filed: Vec<(String, String)> = collection_games::table
        .select((collection_games::collection_id, collection_games::game_id))
        .order((collection_games::collection_id, collection_games::ord))
        .load(conn)
        .unwrap();
    assert_eq!(
        filed[..2],
        [("ca".into(), "g1".into()), ("ca".into(), "g2".into())]
    );
    let (_, copy) = &filed[2];
    assert_eq!((filed.len(), filed[2].0.as_str()), (3, "cb"));
    assert_eq!(copy.len(), 16, "an id as the server makes them: {copy}");

    type Imported = (
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        String,
    );
    let rows: Vec<Imported> = games::table
        .select((
            games::id,
            games::imported_by,
            games::import_key,
            games::source_tags,
            games::white_name,
        ))
        .order(games::import_key)
        .load(conn)
        .unwrap();
    let by_id = |id: &str| rows.iter().find(|row| row.0 == id).unwrap().clone();
    assert_eq!(rows.len(), 3);
    // Keys named their importer (migration 20), then their collection
    // (migration 34).
    assert_eq!(by_id("g1").2.as_deref(), Some("ca:k1"));
    assert_eq!(
        by_id("g1").3.as_deref(),
        Some(tags),
        "the first importer's stay"
    );
    assert_eq!(by_id("g2").2.as_deref(), Some("ca:k2"));
    let (_, owner, key, copied_tags, white) = by_id(copy);
    assert_eq!(
        (owner.as_deref(), key.as_deref()),
        (Some("b1"), Some("cb:k1"))
    );
    assert_eq!(white, "Anna");
    let copied: Vec<(String, String)> = serde_json::from_str(&copied_tags.unwrap()).unwrap();
    let kept = [
        ("Event", "Club"),
        ("White", "Anna"),
        ("Black", "Zed"),
        ("Variant", "Standard"),
    ];
    assert_eq!(copied, kept.map(|(n, v)| (n.to_owned(), v.to_owned())));

    // Packed since (migration 30), the copy's moves are the first's.
    pack_legacy_moves(conn).unwrap();
    let copied = stored_games::find(conn, &copy.as_str().into())
        .unwrap()
        .unwrap();
    let copied_moves: Vec<(i32, String, Option<i64>)> = played_moves(&copied)
        .unwrap()
        .into_iter()
        .map(|m| (m.ply, m.uci, m.played_at))
        .collect();
    assert_eq!(
        copied_moves,
        [
            (1, "e2e4".to_owned(), None),
            (2, "e7e5".to_owned(), Some(5))
        ]
    );
    let notes: Vec<String> = game_notes::table
        .filter(game_notes::game_id.eq(copy))
        .select(game_notes::notes)
        .load(conn)
        .unwrap();
    assert_eq!(notes, ["{\"comment\":\"hi\"}"]);
}

/// A date without its year, which an import stored before, is no day: it
/// is cleared, and every other date kept as it was.
async fn dates_without_their_year_are_cleared(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261205000027");
    diesel::sql_query(
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, white_name, black_name, days_per_move, created_at, updated_at, turn_started_at, \
         played_on) \
         VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 0, 'imported', 'w', 'b', 0, 0, 0, 0, '????.??.??'), \
                ('g2', 'standard', 'standard', 'start', 1, 'now', 0, 'imported', 'w', 'b', 0, 0, 0, 0, '1935.??.??'), \
                ('g3', 'standard', 'standard', 'start', 1, 'now', 0, 'imported', 'w', 'b', 0, 0, 0, 0, NULL)",
    )
    .execute(conn)
    .unwrap();
    db::run_migrations(conn).unwrap();
    let dates: Vec<(String, Option<String>)> = games::table
        .select((games::id, games::played_on))
        .order(games::id)
        .load(conn)
        .unwrap();
    assert_eq!(
        dates,
        [
            ("g1".to_owned(), None),
            ("g2".to_owned(), Some("1935.??.??".to_owned())),
            ("g3".to_owned(), None)
        ]
    );
}

/// An imported game's own `ECO` and `Opening` tags, kept with its source's
/// tags before, become the ones a search matches (the first of each name;
/// a blank or `?` one is none).
async fn an_imported_games_own_opening_tags_are_read_from_its_source(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261205000028");
    let tags = [
        r#"[["Event","a"],["ECO","B92"],["ECO","C00"],["Opening","Najdorf, Opocensky"]]"#,
        r#"[["Event","b"],["ECO","?"],["Opening"," "]]"#,
    ];
    for (id, tags) in ["g1", "g2"].iter().zip(tags) {
        diesel::sql_query(format!(
            "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
             status, white_name, black_name, days_per_move, created_at, updated_at, turn_started_at, \
             source_tags, eco) \
             VALUES ('{id}', 'standard', 'standard', 'start', 1, 'now', 0, 'imported', 'w', 'b', 0, \
             0, 0, 0, '{tags}', 'B90')"
        ))
        .execute(conn)
        .unwrap();
    }
    db::run_migrations(conn).unwrap();
    type Openings = (String, Option<String>, Option<String>, Option<String>);
    let read: Vec<Openings> = games::table
        .select((
            games::id,
            games::tagged_eco,
            games::tagged_opening,
            games::eco,
        ))
        .order(games::id)
        .load(conn)
        .unwrap();
    assert_eq!(
        read,
        [
            (
                "g1".to_owned(),
                Some("B92".to_owned()),
                Some("Najdorf, Opocensky".to_owned()),
                Some("B90".to_owned())
            ),
            ("g2".to_owned(), None, None, Some("B90".to_owned())),
        ]
    );
}

/// The players' names of games stored before names were folded for search
/// are folded when the server next opens the database.
async fn the_names_of_games_stored_before_are_folded_for_search(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261205000029");
    diesel::sql_query(
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, white_name, black_name, days_per_move, created_at, updated_at, turn_started_at) \
         VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 0, 'imported', \
                 'Réti, Richard', 'Capablanca,J.R.', 0, 0, 0, 0), \
                ('g2', 'standard', 'standard', 'start', 1, 'now', 0, 'started', \
                 'alice', 'bob', 3, 0, 0, 0)",
    )
    .execute(conn)
    .unwrap();
    db::run_migrations(conn).unwrap();
    assert_eq!(
        kingpost_api::domain::search::fold_stored_names(conn).unwrap(),
        2
    );
    type Keys = (
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let keys: Vec<Keys> = games::table
        .select((
            games::id,
            games::white_surname,
            games::white_first,
            games::black_surname,
            games::black_first,
        ))
        .order(games::id)
        .load(conn)
        .unwrap();
    let some = |s: &str| Some(s.to_owned());
    assert_eq!(
        keys,
        [
            (
                "g1".to_owned(),
                some("reti"),
                some("richard"),
                some("capablanca"),
                some("j")
            ),
            (
                "g2".to_owned(),
                some("alice"),
                some(""),
                some("bob"),
                some("")
            ),
        ]
    );
    assert_eq!(
        kingpost_api::domain::search::fold_stored_names(conn).unwrap(),
        0,
        "once"
    );
}

/// The moves of the games stored a row a move are packed in their games'
/// rows by the server's first start after migration 30, each as played and
/// when, and every position of every game indexed (its start, and a
/// position left twice by one move once); the old table goes.
async fn stored_moves_are_packed_and_their_positions_indexed(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261205000030");
    let start = Position::new(Rules::Standard);
    let start_key = start.repetition_key() as i64;
    let game_over = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"];
    let round_trip = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3"];
    let mut statements = vec![format!(
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, result, white_name, black_name, days_per_move, created_at, updated_at, \
         turn_started_at) \
         VALUES ('g1', 'standard', 'standard', '{fen}', {start_key}, 'now', 7, 'finished', \
                 '1-0', 'alice', 'bob', 3, 0, 0, 0), \
                ('g2', 'standard', 'standard', '{fen}', {start_key}, '{fen}', 0, 'started', \
                 NULL, 'alice', 'bob', 3, 0, 0, 0), \
                ('g3', 'standard', 'standard', '{fen}', {start_key}, 'now', 5, 'finished', \
                 '0-1', 'alice', 'bob', 3, 0, 0, 0)",
        fen = start.fen()
    )];
    for (game, moves) in [("g1", &game_over[..]), ("g3", &round_trip[..])] {
        for (i, uci) in moves.iter().enumerate() {
            statements.push(format!(
                "INSERT INTO moves (game_id, ply, uci, san, position_key, played_at) \
                 VALUES ('{game}', {ply}, '{uci}', '-', 0, {at})",
                ply = i + 1,
                at = if game == "g1" {
                    (1000 * i).to_string()
                } else {
                    "NULL".to_owned()
                },
            ));
        }
    }
    for statement in statements {
        diesel::sql_query(statement).execute(conn).unwrap();
    }
    db::run_migrations(conn).unwrap();
    assert_eq!(pack_legacy_moves(conn).unwrap(), 2, "the games with moves");
    assert!(!legacy_moves::remain(conn).unwrap());
    assert_eq!(pack_legacy_moves(conn).unwrap(), 0, "once");

    let mut game = |id: &str| -> GameRow { stored_games::find(conn, &id.into()).unwrap().unwrap() };
    let g1 = played_moves(&game("g1")).unwrap();
    let read: Vec<(&str, Option<i64>)> = g1.iter().map(|m| (m.uci.as_str(), m.played_at)).collect();
    let expected: Vec<(&str, Option<i64>)> = game_over
        .iter()
        .enumerate()
        .map(|(i, uci)| (*uci, Some(1000 * i as i64)))
        .collect();
    assert_eq!(read, expected);
    assert_eq!(g1.last().unwrap().san, "O-O");
    assert_eq!(game("g2").moves, [1], "no moves: the format alone");
    assert_eq!(game("g3").move_times, None, "no time known");

    let mut index = |id: &str| -> Vec<(i64, i16, i32)> {
        game_positions::table
            .filter(game_positions::game_id.eq(id))
            .select((
                game_positions::position_key,
                game_positions::next,
                game_positions::ply,
            ))
            .order((game_positions::ply, game_positions::next))
            .load(conn)
            .unwrap()
    };
    assert_eq!(index("g2"), [(start_key, -1, 0)]);
    let g3 = index("g3");
    let plies: Vec<i32> = g3.iter().map(|row| row.2).collect();
    // The start, left by Nf3 at ply 0 and again at 4, is one row; the
    // position after Nf3, left at ply 1 and reached last at 5, two.
    assert_eq!(plies, [0, 1, 2, 3, 5]);
    assert_eq!((g3[0].0, g3[4].0, g3[4].1), (start_key, g3[1].0, -1));
    assert_eq!(index("g1").len(), 8);

    // A search finds a played game by a position after a move.
    let mut after_e4 = start.clone();
    after_e4.play_unchecked(start.parse_move("e2e4").unwrap());
    let query = PositionQuery {
        key: after_e4.repetition_key() as i64,
        rules: Rules::Standard.into(),
        reader: None,
        among: Among::Visible,
    };
    let (found, more) = reaching(conn, &query, None, 10).unwrap();
    assert_eq!((found, more), (vec![("g1".into(), 1)], false));

    // The explorer counts the finished games packed, each once at the
    // start, though g3 left it twice by Nf3.
    let view = explore(
        conn,
        None,
        Rules::Standard,
        &Target::Moves(Vec::new()),
        Scope::Visible,
    )
    .unwrap();
    let moves: Vec<(&str, i64, i64, i64)> = view
        .moves
        .iter()
        .map(|m| (m.san.as_str(), m.games, m.white, m.black))
        .collect();
    assert_eq!(moves, [("Nf3", 1, 0, 1), ("e4", 1, 1, 0)]);
    assert_eq!((view.games, view.white, view.black), (2, 1, 1));
}

/// The explorer's counts of a database made before them are built from its
/// position index: finished played games in theirs, imported games in
/// their collection's, a game's total once however many moves left a
/// position (README, explorer); a game two collections held becomes a copy
/// each, with its notes, annotations and positions, keyed by collection.
async fn explorer_counts_are_built_and_a_game_filed_twice_copied(db: Db) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, "20261205000034");
    for statement in [
        "INSERT INTO accounts (id, username, username_key, password_hash, created_at) \
         VALUES ('a1', 'alice', 'alice', 'x', 0)",
        "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, ply, \
         status, result, white_name, black_name, days_per_move, created_at, updated_at, \
         turn_started_at, imported_by, import_key) \
         VALUES ('p1', 'standard', 'standard', 'start', 10, 'now', 2, 'finished', '1-0', \
                 'w', 'b', 3, 0, 0, 0, NULL, NULL), \
                ('p2', 'standard', 'standard', 'start', 10, 'now', 2, 'started', NULL, \
                 'w', 'b', 3, 0, 0, 0, NULL, NULL), \
                ('i1', 'standard', 'standard', 'start', 10, 'now', 4, 'imported', '0-1', \
                 'w', 'b', 0, 0, 0, 0, 'a1', 'a1:k1')",
        // p1 left 10 by move 3; the game under way did too; i1 left 10 by
        // moves 3 and 5 (back to it in between), then 11 by move 2.
        "INSERT INTO game_positions (position_key, game_id, next, ply) \
         VALUES (10, 'p1', 3, 0), (11, 'p1', -1, 1), (10, 'p2', 3, 0), (11, 'p2', -1, 1), \
                (10, 'i1', 3, 0), (11, 'i1', 2, 1), (10, 'i1', 5, 2), (12, 'i1', -1, 3)",
        "INSERT INTO game_notes (game_id, notes) VALUES ('i1', '{}')",
        "INSERT INTO annotations (game_id, ply, author_id, comment, nags, updated_at) \
         VALUES ('i1', 1, 'a1', 'mine', '[]', 0)",
        "INSERT INTO collections (id, owner_id, name, visibility, created_at, updated_at) \
         VALUES ('ca', 'a1', 'Prep', 'private', 0, 0), ('cb', 'a1', 'Also', 'public', 0, 0)",
        "INSERT INTO collection_games (collection_id, game_id, ord) \
         VALUES ('ca', 'i1', 0), ('cb', 'i1', 0)",
    ] {
        diesel::sql_query(statement).execute(conn).unwrap();
    }
    db::run_migrations(conn).unwrap();

    let filed: Vec<(String, String)> = collection_games::table
        .select((collection_games::collection_id, collection_games::game_id))
        .order(collection_games::collection_id)
        .load(conn)
        .unwrap();
    assert_eq!(filed[0], ("ca".into(), "i1".into()));
    let copy = filed[1].1.clone();
    assert_eq!((filed.len(), filed[1].0.as_str()), (2, "cb"));
    assert_ne!(copy, "i1");
    let mut key = |id: &str| -> Option<String> {
        games::table
            .find(id)
            .select(games::import_key)
            .first(&mut *conn)
            .unwrap()
    };
    assert_eq!(key("i1").as_deref(), Some("ca:k1"));
    assert_eq!(key(&copy).as_deref(), Some("cb:k1"));
    let notes: i64 = game_notes::table
        .filter(game_notes::game_id.eq(&copy))
        .count()
        .get_result(conn)
        .unwrap();
    let annotated: i64 = annotations::table
        .filter(annotations::game_id.eq(&copy))
        .count()
        .get_result(conn)
        .unwrap();
    let positions: i64 = game_positions::table
        .filter(game_positions::game_id.eq(&copy))
        .count()
        .get_result(conn)
        .unwrap();
    assert_eq!((notes, annotated, positions), (1, 1, 4));

    let counts: Vec<(String, i64, i16, i64, i64, i64)> = explorer_counts::table
        .select((
            explorer_counts::scope,
            explorer_counts::position_key,
            explorer_counts::next,
            explorer_counts::games,
            explorer_counts::white,
            explorer_counts::black,
        ))
        .order((
            explorer_counts::scope,
            explorer_counts::position_key,
            explorer_counts::next,
        ))
        .load(conn)
        .unwrap();
    let of = |scope: &str| -> Vec<(i64, i16, i64, i64, i64)> {
        counts
            .iter()
            .filter(|row| row.0 == scope)
            .map(|row| (row.1, row.2, row.3, row.4, row.5))
            .collect()
    };
    assert_eq!(of(""), [(10, 3, 1, 1, 0)], "the finished game alone");
    let imported = [
        (10, -1, 1, 0, 1),
        (10, 3, 1, 0, 1),
        (10, 5, 1, 0, 1),
        (11, 2, 1, 0, 1),
    ];
    assert_eq!(of("ca"), imported);
    assert_eq!(of("cb"), imported, "the copy in its own collection");
}

/// `check`s a database made as the server before migration `version` did,
/// holding what `statements` inserted, once migrated.
fn migrated_from(
    db: &Db,
    version: &str,
    statements: &[&str],
    check: impl FnOnce(&mut DbConnection),
) {
    let pool = db::connect(&db.url()).unwrap();
    let mut pooled = pool.get().unwrap();
    let conn: &mut DbConnection = &mut pooled;
    made_before(conn, version);
    for statement in statements {
        diesel::sql_query(*statement).execute(conn).unwrap();
    }
    db::run_migrations(conn).unwrap();
    check(conn);
}

const ALICE: &str = "INSERT INTO accounts (id, username, username_key, password_hash, created_at) \
                     VALUES ('a1', 'alice', 'alice', 'x', 0)";
const OLD_TOURNAMENT: &str = "INSERT INTO tournaments (id, organiser_id, name, rules, start_kind, start_per_round, \
     days_per_move, rated, double_round, capacity, signup_deadline, status, created_at) \
     VALUES ('t1', 'a1', 'Old', 'standard', 'standard', false, 3, false, false, 4, 10, 'open', 0)";

/// A round robin organised before Swiss tournaments existed reads back as
/// a round robin: no rounds of its own, none paired, no tie-breaks.
async fn a_round_robin_made_before_swiss_stays_a_round_robin(db: Db) {
    migrated_from(&db, "20261206000037", &[ALICE, OLD_TOURNAMENT], |conn| {
        let row: (String, Option<i32>, i32, Option<String>) = tournaments::table
            .select((
                tournaments::format,
                tournaments::rounds,
                tournaments::round,
                tournaments::tiebreaks,
            ))
            .first(conn)
            .unwrap();
        assert_eq!(row, ("round_robin".to_owned(), None, 0, None));
    });
}

/// Games and tournaments made before the events' own rules keep what they
/// had: vacations stop the clocks, and a tournament starts once full.
async fn games_and_tournaments_made_before_event_rules_allow_vacation(db: Db) {
    let game = "INSERT INTO games (id, rules, start_kind, initial_fen, initial_key, current_fen, \
                ply, status, white_name, black_name, days_per_move, created_at, updated_at, \
                turn_started_at) \
                VALUES ('g1', 'standard', 'standard', 'start', 1, 'now', 1, 'started', 'w', 'b', \
                        3, 0, 0, 0)";
    migrated_from(
        &db,
        "20261206000038",
        &[ALICE, game, OLD_TOURNAMENT],
        |conn| {
            let game: bool = games::table
                .select(games::vacation_allowed)
                .first(conn)
                .unwrap();
            let tournament: (bool, bool) = tournaments::table
                .select((tournaments::vacation_allowed, tournaments::start_when_full))
                .first(conn)
                .unwrap();
            assert_eq!((game, tournament), (true, (true, true)));
        },
    );
}

/// A tournament and its players from before teams read back as they were,
/// through the service's own view: no teams, no team match.
async fn tournaments_made_before_teams_read_as_they_were(db: Db) {
    let player = "INSERT INTO tournament_players (tournament_id, account_id, joined_at) \
                  VALUES ('t1', 'a1', 5)";
    migrated_from(
        &db,
        "20261207000039",
        &[ALICE, OLD_TOURNAMENT, player],
        |conn| {
            let view = kingpost_api::domain::tournament::view::view(conn, &"t1".into()).unwrap();
            assert_eq!(view.summary.format, TournamentFormat::RoundRobin);
            assert_eq!(view.summary.player_count, 1);
            assert_eq!(view.players[0].username, "alice");
            assert!(view.summary.home_team.is_none() && view.team_match.is_none());
        },
    );
}

/// A Swiss started before a round's pairs were stored (its games written
/// in steps) is due its next round as before, and nothing of it waits to
/// be written.
async fn a_swiss_under_way_before_stored_pairings_waits_for_its_round_as_before(db: Db) {
    let swiss = "INSERT INTO tournaments (id, organiser_id, name, rules, start_kind, \
                 start_per_round, days_per_move, rated, double_round, capacity, signup_deadline, \
                 status, created_at, format, rounds, round) \
                 VALUES ('t2', 'a1', 'Swiss', 'standard', 'standard', false, 3, false, false, 9, \
                         10, 'started', 0, 'swiss', 3, 0)";
    migrated_from(&db, "20261207000040", &[ALICE, swiss], |conn| {
        let due = kingpost_api::domain::tournament::swiss::rounds_due(conn).unwrap();
        let names: Vec<String> = due.iter().map(|f| format!("{f:?}")).collect();
        assert_eq!(names, [r#"PairRound(TournamentId("t2"))"#]);
    });
}
