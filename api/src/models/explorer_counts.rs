//! The explorer's counts: for each scope (finished played games, or one
//! collection), rule set, position and move, how many games played the
//! move and how they ended. Kept as games finish and imports file them, so
//! that the explorer reads a few rows a scope whatever the number of
//! games, where the position index has a row a game.
//!
//! A game leaving one position by k moves (back to it, then another way)
//! adds k - 1 to the position's row [`CORRECTION`]: a position's total,
//! each game once, is the sum of its moves' rows less that row.

use std::collections::{BTreeMap, BTreeSet};

use diesel::{
    prelude::*,
    sql_types::{BigInt, SmallInt, Text},
    upsert::excluded,
};

use crate::{
    db::{DbConnection, execute_natively, schema::explorer_counts},
    models::position_index::{NO_MOVE, PositionRow},
    stored::{AccountId, CollectionId},
    views::{GameResult, RuleKey, Visibility},
};

/// The scope of finished played games (a collection's is its id).
pub const PLAYED: &str = "";

/// `next` of the row that corrects a position's total for the games that
/// left it by more than one move.
pub const CORRECTION: i16 = NO_MOVE;

/// One row of the counts, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Insertable)]
#[diesel(table_name = explorer_counts, treat_none_as_default_value = false)]
pub struct CountRow {
    pub scope: String,
    pub rules: &'static str,
    pub position_key: i64,
    pub next: i16,
    pub games: i64,
    pub white: i64,
    pub draws: i64,
    pub black: i64,
}

/// Counts being added up for games of some scopes, before they are
/// written: one row per scope, rule set, position and move.
#[derive(Debug, Default)]
pub struct Tally(BTreeMap<(String, &'static str, i64, i16), [i64; 4]>);

impl Tally {
    /// Counts one game of `scope`: its position index rows (every one of
    /// the game's, as `index_rows` makes them), its rule set and result.
    pub fn add_game(
        &mut self,
        scope: &str,
        rules: RuleKey,
        result: Option<GameResult>,
        rows: &[PositionRow],
    ) {
        let played: BTreeSet<(i64, i16)> = rows
            .iter()
            .filter(|row| row.next != NO_MOVE)
            .map(|row| (row.position_key, row.next))
            .collect();
        let mut left = |key: i64, next: i16, times: i64| {
            let counts = self
                .0
                .entry((scope.to_owned(), rules.0.key(), key, next))
                .or_default();
            counts[0] += times;
            match result {
                Some(GameResult::WhiteWon) => counts[1] += times,
                Some(GameResult::Draw) => counts[2] += times,
                Some(GameResult::BlackWon) => counts[3] += times,
                Some(GameResult::Unknown) | None => {}
            }
        };
        let mut moves_from: BTreeMap<i64, i64> = BTreeMap::new();
        for &(key, next) in &played {
            left(key, next, 1);
            *moves_from.entry(key).or_default() += 1;
        }
        for (key, moves) in moves_from {
            if moves > 1 {
                left(key, CORRECTION, moves - 1);
            }
        }
    }

    /// The rows, in the table's order.
    pub fn rows(self) -> Vec<CountRow> {
        self.0
            .into_iter()
            .map(
                |((scope, rules, position_key, next), [games, white, draws, black])| CountRow {
                    scope,
                    rules,
                    position_key,
                    next,
                    games,
                    white,
                    draws,
                    black,
                },
            )
            .collect()
    }
}

/// Rows of one statement: within SQLite's limit of bound parameters (8 a
/// row).
const ROWS_A_STATEMENT: usize = 1000;

/// Adds `rows` (each key once, as [`Tally::rows`] gives them) to the counts.
pub fn add(conn: &mut DbConnection, rows: &[CountRow]) -> QueryResult<()> {
    use crate::db::schema::explorer_counts::dsl::*;
    for chunk in rows.chunks(ROWS_A_STATEMENT) {
        let upsert = diesel::insert_into(explorer_counts)
            .values(chunk)
            .on_conflict((scope, rules, position_key, next))
            .do_update()
            .set((
                games.eq(games + excluded(games)),
                white.eq(white + excluded(white)),
                draws.eq(draws + excluded(draws)),
                black.eq(black + excluded(black)),
            ));
        execute_natively(conn, upsert)?;
    }
    Ok(())
}

/// Adds to the counts the games whose positions a bulk import staged
/// (`position_index::stage`), each in the collection that holds it: a
/// sort of the staged rows, where counting them batch by batch would
/// rewrite the opening positions' rows at every batch. Before the staged
/// rows are forgotten, in the same transaction.
pub fn add_staged(conn: &mut DbConnection) -> QueryResult<()> {
    // `WHERE true`: SQLite reads `ON` after a bare `SELECT` as a join's.
    diesel::sql_query(
        "WITH counted AS (
            SELECT s.position_key, s.game_id, s.next, g.rules, cg.collection_id AS scope, g.result
            FROM (SELECT DISTINCT position_key, game_id, next FROM staged_positions
                  WHERE next <> -1) s
            JOIN games g ON g.id = s.game_id
            JOIN collection_games cg ON cg.game_id = s.game_id
        ), tallied AS (
            SELECT scope, rules, position_key, next, result, COUNT(*) AS games
            FROM counted GROUP BY scope, rules, position_key, next, result
            UNION ALL
            SELECT scope, rules, position_key, -1, result, COUNT(*) - 1
            FROM counted GROUP BY scope, rules, position_key, game_id, result
            HAVING COUNT(*) > 1
        )
        INSERT INTO explorer_counts (scope, rules, position_key, next, games, white, draws, black)
        SELECT scope, rules, position_key, next, SUM(games),
            SUM(CASE WHEN result = '1-0' THEN games ELSE 0 END),
            SUM(CASE WHEN result = '1/2-1/2' THEN games ELSE 0 END),
            SUM(CASE WHEN result = '0-1' THEN games ELSE 0 END)
        FROM tallied WHERE true GROUP BY scope, rules, position_key, next
        ON CONFLICT (scope, rules, position_key, next) DO UPDATE SET
            games = explorer_counts.games + excluded.games,
            white = explorer_counts.white + excluded.white,
            draws = explorer_counts.draws + excluded.draws,
            black = explorer_counts.black + excluded.black",
    )
    .execute(conn)
    .map(|_| ())
}

/// Deletes up to `limit` rows of the counts of `scope` (a collection being
/// deleted): how many.
pub fn delete_part_of_scope(
    conn: &mut DbConnection,
    of: &CollectionId,
    limit: i64,
) -> QueryResult<usize> {
    // Neither database deletes with a limit: the keys of the first rows
    // name them, along the primary key.
    diesel::sql_query(
        "DELETE FROM explorer_counts WHERE scope = $1 AND (rules, position_key, next) IN \
         (SELECT rules, position_key, next FROM explorer_counts WHERE scope = $1 \
          ORDER BY rules, position_key, next LIMIT $2)",
    )
    .bind::<Text, _>(of.as_str())
    .bind::<BigInt, _>(limit)
    .execute(conn)
}

/// The games that played one move from a position, summed over scopes;
/// [`CORRECTION`]'s row is to be taken from the position's total.
#[derive(Debug, QueryableByName)]
pub struct MoveCount {
    #[diesel(sql_type = SmallInt)]
    pub next: i16,
    #[diesel(sql_type = BigInt)]
    pub games: i64,
    #[diesel(sql_type = BigInt)]
    pub white: i64,
    #[diesel(sql_type = BigInt)]
    pub draws: i64,
    #[diesel(sql_type = BigInt)]
    pub black: i64,
}

/// Which scopes a reading sums.
#[derive(Debug, Clone, Copy)]
pub enum Scopes<'a> {
    /// Finished played games, public collections, and the reader's own.
    Visible(Option<&'a AccountId>),
    /// The collections of one account.
    OwnedBy(&'a AccountId),
    /// One collection.
    Collection(&'a CollectionId),
}

/// The counts of the moves played from the position `key` of `rules` in
/// the games of `scopes`, summed by move.
pub fn moves_from(
    conn: &mut DbConnection,
    key: i64,
    rules: RuleKey,
    scopes: Scopes<'_>,
) -> QueryResult<Vec<MoveCount>> {
    let public = Visibility::Public.key();
    let (among, account) = match scopes {
        Scopes::Visible(reader) => (
            format!(
                "SELECT '{PLAYED}' UNION ALL SELECT id FROM collections \
                 WHERE visibility = '{public}' OR owner_id = $3"
            ),
            reader.map_or_else(String::new, ToString::to_string),
        ),
        Scopes::OwnedBy(owner) => (
            "SELECT id FROM collections WHERE owner_id = $3".to_owned(),
            owner.to_string(),
        ),
        Scopes::Collection(id) => ("SELECT $3".to_owned(), id.to_string()),
    };
    diesel::sql_query(format!(
        "SELECT next, CAST(SUM(games) AS BIGINT) AS games, CAST(SUM(white) AS BIGINT) AS white, \
         CAST(SUM(draws) AS BIGINT) AS draws, CAST(SUM(black) AS BIGINT) AS black \
         FROM explorer_counts WHERE rules = $1 AND position_key = $2 AND scope IN ({among}) \
         GROUP BY next"
    ))
    .bind::<Text, _>(rules.0.key())
    .bind::<BigInt, _>(key)
    .bind::<Text, _>(account)
    .load(conn)
}
