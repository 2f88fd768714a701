//! The position index: each position a game stood in, with the move it
//! played from there, for the searches by position and the explorer.

use diesel::prelude::*;

use crate::{
    db::{
        self, DbConnection, Merged, Portion, execute_natively,
        schema::{game_positions, staged_positions},
    },
    stored::GameId,
};

/// `next` of a position the game played no move from (yet).
pub const NO_MOVE: i16 = -1;

/// A position staged by a bulk import: a [`PositionRow`] waiting to be
/// added to the index.
#[derive(Debug, Insertable)]
#[diesel(table_name = staged_positions, treat_none_as_default_value = false)]
struct StagedRow<'a> {
    position_key: i64,
    game_id: &'a GameId,
    next: i16,
    ply: i32,
}

/// A position of a game: its repetition key, the number of the move the
/// game played from it (docs/spec/packed-moves.md; [`NO_MOVE`]), and the
/// first ply the game stood there. A game leaving one position by two
/// moves has a row for each.
#[derive(Debug, Clone, PartialEq, Eq, Insertable)]
#[diesel(table_name = game_positions, treat_none_as_default_value = false)]
pub struct PositionRow {
    pub position_key: i64,
    pub game_id: GameId,
    pub next: i16,
    pub ply: i32,
}

/// Puts `rows` in the index's order: inserted in turn, rows land on
/// neighbouring pages, where a game's own land all over the index.
pub fn sort(rows: &mut [PositionRow]) {
    rows.sort_unstable_by(|a, b| {
        (a.position_key, &a.game_id, a.next).cmp(&(b.position_key, &b.game_id, b.next))
    });
}

/// Rows of one statement when many are inserted: well below SQLite's limit
/// of bound parameters (4 a row).
const ROWS_A_STATEMENT: usize = 2000;

/// Inserts `rows`, leaving a row already there as it is (it has the
/// earlier ply): a few a statement each, kept prepared; many in batches.
pub fn insert(conn: &mut DbConnection, rows: &[PositionRow]) -> QueryResult<()> {
    if rows.len() <= 4 {
        for row in rows {
            let insert = diesel::insert_into(game_positions::table)
                .values(row)
                .on_conflict_do_nothing();
            execute_natively(conn, insert)?;
        }
        return Ok(());
    }
    for chunk in rows.chunks(ROWS_A_STATEMENT) {
        let insert = diesel::insert_into(game_positions::table)
            .values(chunk)
            .on_conflict_do_nothing();
        execute_natively(conn, insert)?;
    }
    Ok(())
}

/// Inserts the rows of games just stored, which no row of the index can
/// clash with (each game's rows distinct, as `index_rows` makes them): on
/// Postgres by `COPY`, a stream without a statement's per-row work.
pub fn insert_new(conn: &mut DbConnection, rows: &[PositionRow]) -> QueryResult<()> {
    match conn {
        DbConnection::Postgresql(pg) => {
            use diesel::ExecuteCopyFromDsl;
            diesel::copy_from(game_positions::table)
                .from_insertable(rows)
                .execute(pg)
                .map(|_| ())
        }
        DbConnection::Sqlite(_) => insert(conn, rows),
    }
}

/// Stages the rows of games a bulk import just stored, to be added to the
/// index by [`merge_staged`] once the import ends: appended, by `COPY` on
/// Postgres.
pub fn stage(conn: &mut DbConnection, rows: &[PositionRow]) -> QueryResult<()> {
    let staged: Vec<StagedRow<'_>> = rows
        .iter()
        .map(|row| StagedRow {
            position_key: row.position_key,
            game_id: &row.game_id,
            next: row.next,
            ply: row.ply,
        })
        .collect();
    match conn {
        DbConnection::Postgresql(pg) => {
            use diesel::ExecuteCopyFromDsl;
            diesel::copy_from(staged_positions::table)
                .from_insertable(&staged)
                .execute(pg)
                .map(|_| ())
        }
        DbConnection::Sqlite(_) => {
            for chunk in staged.chunks(ROWS_A_STATEMENT) {
                let insert = diesel::insert_into(staged_positions::table).values(chunk);
                execute_natively(conn, insert)?;
            }
            Ok(())
        }
    }
}

/// Adds `portion` of the staged rows to the index, in its order, and
/// forgets them: the caller's transaction makes the two one. Rows of a
/// game deleted since they were staged are dropped ([`hold_staged`]).
pub fn merge_staged(conn: &mut DbConnection, portion: Portion) -> QueryResult<Merged> {
    db::merge_staging(
        conn,
        "staged_positions",
        "INSERT INTO game_positions (position_key, game_id, next, ply) \
         SELECT position_key, game_id, next, ply FROM staged_positions s \
         WHERE EXISTS (SELECT 1 FROM games g WHERE g.id = s.game_id) {portion} \
         ORDER BY position_key, game_id, next ON CONFLICT DO NOTHING",
        portion,
    )
}

/// Keeps a merge of staged rows (positions, then counts) from starting
/// until the caller's transaction ends, and waits for one under way: a
/// transaction deleting imported games or a collection's counts takes this
/// before anything else, so that a merge sees them either present with
/// their rows (deleted after it) or gone (their rows dropped). On SQLite,
/// whose writers take turns, there is nothing to hold.
pub fn hold_staged(conn: &mut DbConnection) -> QueryResult<()> {
    if let DbConnection::Postgresql(pg) = conn {
        // Taken by appends too, and in conflict only with a merge's lock.
        diesel::sql_query("LOCK TABLE staged_positions IN ROW EXCLUSIVE MODE").execute(pg)?;
    }
    Ok(())
}

/// Whether any rows are staged.
pub fn any_staged(conn: &mut DbConnection) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        staged_positions::table.select(staged_positions::ply),
    ))
    .get_result(conn)
}

/// Forgets that game `game_id` stands in the position `key` with no move
/// played from it: it has just played one.
pub fn leave(conn: &mut DbConnection, game_id: &GameId, key: i64) -> QueryResult<()> {
    diesel::delete(game_positions::table.find((key, game_id, NO_MOVE)))
        .execute(conn)
        .map(|_| ())
}

/// Deletes the rows of game `game_id`, whose positions have the keys
/// `keys`: found along the index, a key at a time.
pub fn delete_game(conn: &mut DbConnection, game_id: &GameId, keys: &[i64]) -> QueryResult<()> {
    for chunk in keys.chunks(ROWS_A_STATEMENT) {
        diesel::delete(
            game_positions::table
                .filter(game_positions::position_key.eq_any(chunk))
                .filter(game_positions::game_id.eq(game_id)),
        )
        .execute(conn)?;
    }
    Ok(())
}
