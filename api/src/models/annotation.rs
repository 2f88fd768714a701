//! Annotations: an imported game's notes as read from its file, and the
//! players' own annotations of their finished games.

use diesel::{prelude::*, upsert::excluded};

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{accounts, annotations, game_notes},
    },
    stored::{AccountId, GameId},
};

/// An imported game's comments, NAGs and variations, as stored JSON.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_notes)]
pub struct NotesRow {
    pub game_id: GameId,
    pub notes: String,
}

/// A player's annotation of one ply of a finished game.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = annotations)]
pub struct AnnotationRow {
    pub game_id: GameId,
    pub ply: i32,
    pub author_id: AccountId,
    pub comment: Option<String>,
    /// NAG numbers, space-separated, ascending.
    pub nags: String,
    pub updated_at: i64,
}

pub fn insert_notes(conn: &mut DbConnection, row: &NotesRow) -> QueryResult<()> {
    diesel::insert_into(game_notes::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// Inserts the notes of games just stored, a few hundred a statement.
pub fn insert_all_notes(conn: &mut DbConnection, rows: &[NotesRow]) -> QueryResult<()> {
    for chunk in rows.chunks(500) {
        execute_natively(conn, diesel::insert_into(game_notes::table).values(chunk))?;
    }
    Ok(())
}

/// The stored notes of these games.
pub fn notes_of(conn: &mut DbConnection, ids: &[&GameId]) -> QueryResult<Vec<NotesRow>> {
    game_notes::table
        .filter(game_notes::game_id.eq_any(ids))
        .select(NotesRow::as_select())
        .load(conn)
}

pub fn delete_notes(conn: &mut DbConnection, ids: &[GameId]) -> QueryResult<usize> {
    diesel::delete(game_notes::table.filter(game_notes::game_id.eq_any(ids))).execute(conn)
}

/// Writes an author's annotation of a ply, replacing theirs there before.
pub fn upsert(conn: &mut DbConnection, row: &AnnotationRow) -> QueryResult<()> {
    let upsert = diesel::insert_into(annotations::table)
        .values(row)
        .on_conflict((
            annotations::game_id,
            annotations::ply,
            annotations::author_id,
        ))
        .do_update()
        .set((
            annotations::comment.eq(excluded(annotations::comment)),
            annotations::nags.eq(excluded(annotations::nags)),
            annotations::updated_at.eq(excluded(annotations::updated_at)),
        ));
    execute_natively(conn, upsert)?;
    Ok(())
}

/// Deletes an author's annotation of a ply; whether there was one.
pub fn delete(
    conn: &mut DbConnection,
    game_id: &GameId,
    ply: i32,
    author: &AccountId,
) -> QueryResult<bool> {
    diesel::delete(annotations::table.find((game_id, ply, author)))
        .execute(conn)
        .map(|n| n > 0)
}

/// The players' annotations of these games with their authors' names, by
/// game, ply and then author's name.
pub fn of_games(
    conn: &mut DbConnection,
    ids: &[&GameId],
) -> QueryResult<Vec<(AnnotationRow, String)>> {
    annotations::table
        .inner_join(accounts::table)
        .filter(annotations::game_id.eq_any(ids))
        .order((annotations::game_id, annotations::ply, accounts::username))
        .select((AnnotationRow::as_select(), accounts::username))
        .load(conn)
}
