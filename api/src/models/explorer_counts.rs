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
    db::{
        self, DbConnection, Merged, Portion, execute_natively,
        schema::{explorer_counts, staged_counts},
    },
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

/// One scope's counts being added up: games, White's wins, draws and
/// Black's wins, by rule set, position and move.
type ScopeTally = BTreeMap<(&'static str, i64, i16), [i64; 4]>;

/// Counts being added up for games of some scopes, before they are
/// written: one row per scope, rule set, position and move.
#[derive(Debug, Default)]
pub struct Tally(BTreeMap<String, ScopeTally>);

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
        if !self.0.contains_key(scope) {
            self.0.insert(scope.to_owned(), BTreeMap::new());
        }
        let of_scope = self.0.get_mut(scope).expect("inserted above");
        let mut left = |key: i64, next: i16, times: i64| {
            let counts = of_scope.entry((rules.0.key(), key, next)).or_default();
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
            .flat_map(|(scope, counts)| {
                counts.into_iter().map(
                    move |((rules, position_key, next), [games, white, draws, black])| CountRow {
                        scope: scope.clone(),
                        rules,
                        position_key,
                        next,
                        games,
                        white,
                        draws,
                        black,
                    },
                )
            })
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

/// Stages `rows` (the counts of games a bulk import just stored), to be
/// added to the counts by [`merge_staged`] once the import ends: counted
/// batch by batch, an import would rewrite the opening positions' rows at
/// every batch. Appended, by `COPY` on Postgres.
pub fn stage(conn: &mut DbConnection, rows: &[CountRow]) -> QueryResult<()> {
    let staged: Vec<StagedCount<'_>> = rows.iter().map(StagedCount::from).collect();
    match conn {
        DbConnection::Postgresql(pg) => {
            use diesel::ExecuteCopyFromDsl;
            diesel::copy_from(staged_counts::table)
                .from_insertable(&staged)
                .execute(pg)
                .map(|_| ())
        }
        DbConnection::Sqlite(_) => {
            for chunk in staged.chunks(ROWS_A_STATEMENT) {
                let insert = diesel::insert_into(staged_counts::table).values(chunk);
                execute_natively(conn, insert)?;
            }
            Ok(())
        }
    }
}

/// Adds `portion` of the staged counts to the counts, summed in the
/// table's order, and forgets them: the caller's transaction makes the two
/// one. Counts of a collection deleted since they were staged are dropped.
pub fn merge_staged(conn: &mut DbConnection, portion: Portion) -> QueryResult<Merged> {
    db::merge_staging(
        conn,
        "staged_counts",
        "INSERT INTO explorer_counts (scope, rules, position_key, next, games, white, draws, black) \
         SELECT scope, rules, position_key, next, SUM(games), SUM(white), SUM(draws), SUM(black) \
         FROM staged_counts s \
         WHERE (s.scope = '' OR EXISTS (SELECT 1 FROM collections c WHERE c.id = s.scope)) {portion} \
         GROUP BY scope, rules, position_key, next \
         ORDER BY scope, rules, position_key, next \
         ON CONFLICT (scope, rules, position_key, next) DO UPDATE SET \
         games = explorer_counts.games + excluded.games, \
         white = explorer_counts.white + excluded.white, \
         draws = explorer_counts.draws + excluded.draws, \
         black = explorer_counts.black + excluded.black",
        portion,
    )
}

/// Whether any counts are staged.
pub fn any_staged(conn: &mut DbConnection) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        staged_counts::table.select(staged_counts::games),
    ))
    .get_result(conn)
}

/// A [`CountRow`] written to the staging table.
#[derive(Debug, Insertable)]
#[diesel(table_name = staged_counts, treat_none_as_default_value = false)]
struct StagedCount<'a> {
    scope: &'a str,
    rules: &'static str,
    position_key: i64,
    next: i16,
    games: i64,
    white: i64,
    draws: i64,
    black: i64,
}

impl<'a> From<&'a CountRow> for StagedCount<'a> {
    fn from(row: &'a CountRow) -> StagedCount<'a> {
        StagedCount {
            scope: &row.scope,
            rules: row.rules,
            position_key: row.position_key,
            next: row.next,
            games: row.games,
            white: row.white,
            draws: row.draws,
            black: row.black,
        }
    }
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

/// Forgets every count of collection `of`, staged or merged: the last step
/// of its deletion, in the transaction that deletes it, after which no
/// merge can add its counts (they are dropped for a collection gone).
/// Staged counts are deleted first: on Postgres that waits for a merge
/// under way, whose counts the second statement then sees.
pub fn forget_scope(conn: &mut DbConnection, of: &CollectionId) -> QueryResult<()> {
    diesel::delete(staged_counts::table.filter(staged_counts::scope.eq(of.as_str())))
        .execute(conn)?;
    diesel::delete(explorer_counts::table.filter(explorer_counts::scope.eq(of.as_str())))
        .execute(conn)?;
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use kingpost_core::Rules;

    fn row(position_key: i64, next: i16) -> PositionRow {
        PositionRow {
            position_key,
            game_id: "g".into(),
            next,
            ply: 0,
        }
    }

    // docs/spec/packed-moves.md, the explorer's counts: a game counts once
    // for each move it played from a position, and a game that left a
    // position by k moves adds k - 1 to its row `-1`.
    #[test]
    fn a_game_leaving_a_position_twice_corrects_its_total() {
        let mut tally = Tally::default();
        let standard = RuleKey(Rules::Standard);
        let left_twice = [row(10, 3), row(11, 2), row(10, 5), row(12, NO_MOVE)];
        tally.add_game("c", standard, Some(GameResult::BlackWon), &left_twice);
        tally.add_game("c", standard, Some(GameResult::WhiteWon), &[row(10, 3)]);
        tally.add_game("", standard, None, &[row(10, 3)]);
        let rows: Vec<(&str, i64, i16, [i64; 4])> = tally
            .rows()
            .iter()
            .map(|r| {
                let counts = [r.games, r.white, r.draws, r.black];
                (
                    if r.scope.is_empty() { "" } else { "c" },
                    r.position_key,
                    r.next,
                    counts,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("", 10, 3, [1, 0, 0, 0]),
                ("c", 10, CORRECTION, [1, 0, 0, 1]),
                ("c", 10, 3, [2, 1, 0, 1]),
                ("c", 10, 5, [1, 0, 0, 1]),
                ("c", 11, 2, [1, 0, 0, 1]),
            ]
        );
    }
}
