//! Archives for the benchmarks: random standard games, stored directly.

use kingpost_api::{
    db::{DbConnection, write_transaction},
    models::{
        account::{self, Account},
        explorer_counts::{self, Tally},
        game::{self, GameRow},
        position_index::{self, PositionRow},
    },
};
use kingpost_core::{Game, Position, Rules, packed, pgn::write_played};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The accounts `alice` and `bob`, who play the seeded games.
pub fn accounts(conn: &mut DbConnection) {
    for name in ["alice", "bob"] {
        account::insert(
            conn,
            &Account {
                id: name.into(),
                username: name.into(),
                username_key: name.into(),
                password_hash: "-".into(),
                created_at: 0,
                vacation_balance: 0,
                vacation_next_grant_at: 0,
                vacation_since: None,
                last_active_at: None,
                deleted_at: None,
                bot: false,
                online_until: None,
            },
        )
        .unwrap();
    }
}

/// A played game's moves: UCI, SAN, key.
pub type Moves = Vec<(String, String, i64)>;

/// A random game to store: its moves, final position and packed moves.
pub struct Sample {
    pub moves: Moves,
    pub fen: String,
    pub packed: Vec<u8>,
}

pub fn sample_games(count: usize) -> Vec<Sample> {
    let mut rng = SmallRng::seed_from_u64(9);
    (0..count)
        .map(|_| {
            let mut game = Game::new(Position::new(Rules::Standard));
            let mut moves = Vec::new();
            let plies = rng.random_range(40..120);
            game.play_random(
                plies,
                |n| rng.random_range(0..n),
                |game, legal, m| {
                    let pos = game.position();
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    let key = after.repetition_key() as i64;
                    moves.push((pos.uci(&m), pos.san_among(&m, legal), key));
                },
            );
            Sample {
                moves,
                fen: game.position().fen(),
                packed: packed::pack(game.initial(), game.moves()).unwrap(),
            }
        })
        .collect()
}

/// A finished standard game `id` between `white` and `black`, played along
/// `sample` at `at`, drawn by agreement.
pub fn finished_game(id: &str, at: i64, white: &str, black: &str, sample: &Sample) -> GameRow {
    let initial = Position::new(Rules::Standard);
    let (moves, fen) = (&sample.moves, &sample.fen);
    GameRow {
        id: id.into(),
        rules: Rules::Standard.into(),
        start_kind: kingpost_api::models::game::StartKind::Standard,
        start_number: None,
        initial_fen: initial.fen(),
        initial_key: initial.repetition_key() as i64,
        current_fen: fen.clone(),
        ply: moves.len() as i32,
        status: kingpost_api::views::GameStatus::Finished,
        result: Some(kingpost_api::views::GameResult::Draw),
        termination: Some(kingpost_api::views::Termination::Agreement),
        white_id: Some(white.into()),
        black_id: Some(black.into()),
        white_name: white.into(),
        black_name: black.into(),
        to_move_id: None,
        days_per_move: 3,
        deadline_at: None,
        created_at: at,
        updated_at: at,
        imported_by: None,
        import_key: None,
        source_tags: None,
        turn_started_at: at,
        draw_offer_by: None,
        warned_ply: None,
        eco: None,
        opening: None,
        played_on: None,
        rated: false,
        clock: None,
        waiting_bank: None,
        holds_conditionals: false,
        tagged_eco: None,
        tagged_opening: None,
        white_surname: None,
        white_first: None,
        black_surname: None,
        black_first: None,
        moves: sample.packed.clone(),
        move_times: None,
        recent_keys: None,
        vacation_allowed: true,
    }
    .with_name_keys()
}

/// The position index rows of `game`, played along `sample`.
pub fn index_rows(game: &GameRow, sample: &Sample) -> Vec<PositionRow> {
    let keys: Vec<i64> = std::iter::once(game.initial_key)
        .chain(sample.moves.iter().map(|(_, _, key)| *key))
        .collect();
    let numbers = packed::numbers(&sample.packed).unwrap();
    kingpost_api::domain::game::moves::index_rows(&game.id, &keys, &numbers)
}

/// The archive sizes asked for on the command line (or `default`), in
/// ascending order: each grows the one archive seeded for the size before.
pub fn growing_sizes(args: &[String], default: &[usize]) -> Vec<usize> {
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = default.to_vec();
    }
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Grows the archive of games `from..to`, a thousand games a transaction.
pub fn seed(conn: &mut DbConnection, from: usize, to: usize, samples: &[Sample]) {
    for batch_start in (from..to).step_by(1000) {
        write_transaction(conn, |conn| {
            let mut positions = Vec::new();
            let mut counts = Tally::default();
            for i in batch_start..to.min(batch_start + 1000) {
                let sample = &samples[i % samples.len()];
                let at = 1_796_040_000_000 + i as i64 * 1000;
                let row = finished_game(&format!("bench{i:08}"), at, "alice", "bob", sample);
                game::insert(conn, &row)?;
                // The start is indexed with the game, as a game not begun.
                position_index::leave(conn, &row.id, row.initial_key)?;
                let rows = index_rows(&row, sample);
                // Counted in the explorer as the game finished.
                counts.add_game(explorer_counts::PLAYED, row.rules, row.result, &rows);
                positions.extend(rows);
            }
            explorer_counts::add(conn, &counts.rows())?;
            // In the index's order, as an import writes them.
            position_index::sort(&mut positions);
            position_index::insert(conn, &positions)
        })
        .expect("seeding");
    }
}

/// Random standard games as PGN, each told apart by its `Round` tag,
/// up to `games` of them or `bytes` of text; with `stamped`, a time
/// comment after each move, as kingpost's exports have.
pub fn pgn_sample(games: usize, bytes: usize, stamped: bool) -> String {
    let mut rng = SmallRng::seed_from_u64(21);
    let mut text = String::new();
    for round in 1..=games {
        let mut game = Game::new(Position::new(Rules::Standard));
        let plies = rng.random_range(40..120);
        game.play_random(plies, |n| rng.random_range(0..n), |_, _, _| {});
        let tags = [
            ("Event", "import bench".to_owned()),
            ("Round", round.to_string()),
            ("White", "white".to_owned()),
            ("Black", "black".to_owned()),
            ("Result", game.result().to_owned()),
        ];
        let mut one = String::new();
        let stamp = stamped.then_some("2026-12-02T12:00:00Z");
        write_played(&mut one, &tags, &game, stamp);
        if text.len() + one.len() > bytes {
            break;
        }
        text.push_str(&one);
    }
    text
}
