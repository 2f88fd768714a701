//! Collections of imported games and the games in them.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{collection_games, collections, games},
    },
    models::game::{GameRow, GameStatus},
    stored::{AccountId, CollectionId, GameId},
    views::Visibility,
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = collections)]
pub struct CollectionRow {
    pub id: CollectionId,
    pub owner_id: AccountId,
    pub name: String,
    pub visibility: Visibility,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = collection_games, treat_none_as_default_value = false)]
pub struct Membership {
    pub collection_id: CollectionId,
    pub game_id: GameId,
    pub ord: i64,
}

/// Inserts a collection unless its owner has one of its name (stored, or
/// being stored by a transaction this one then waits for): whether it was
/// inserted.
pub fn insert_unless_named(conn: &mut DbConnection, row: &CollectionRow) -> QueryResult<bool> {
    let insert = diesel::insert_into(collections::table)
        .values(row)
        .on_conflict((collections::owner_id, collections::name))
        .do_nothing();
    execute_natively(conn, insert).map(|inserted| inserted == 1)
}

pub fn find(conn: &mut DbConnection, id: &CollectionId) -> QueryResult<Option<CollectionRow>> {
    collections::table
        .find(id)
        .select(CollectionRow::as_select())
        .first(conn)
        .optional()
}

pub fn find_by_name(
    conn: &mut DbConnection,
    owner: &AccountId,
    name: &str,
) -> QueryResult<Option<CollectionRow>> {
    collections::table
        .filter(collections::owner_id.eq(owner))
        .filter(collections::name.eq(name))
        .select(CollectionRow::as_select())
        .first(conn)
        .optional()
}

/// How many collections `owner` has.
pub fn count_of_owner(conn: &mut DbConnection, owner: &AccountId) -> QueryResult<i64> {
    collections::table
        .filter(collections::owner_id.eq(owner))
        .count()
        .get_result(conn)
}

/// The owner's collections, public only unless `private_too`, by name.
pub fn of_owner(
    conn: &mut DbConnection,
    owner: &AccountId,
    private_too: bool,
) -> QueryResult<Vec<CollectionRow>> {
    let mut query = collections::table
        .filter(collections::owner_id.eq(owner))
        .order((collections::name.asc(), collections::id.asc()))
        .select(CollectionRow::as_select())
        .into_boxed();
    if !private_too {
        query = query.filter(collections::visibility.eq(Visibility::Public));
    }
    query.load(conn)
}

/// Stores a collection's name, visibility and change time.
pub fn update(conn: &mut DbConnection, row: &CollectionRow) -> QueryResult<()> {
    diesel::update(collections::table.find(&row.id))
        .set((
            collections::name.eq(&row.name),
            collections::visibility.eq(row.visibility),
            collections::updated_at.eq(row.updated_at),
        ))
        .execute(conn)
        .map(|_| ())
}

/// How many games each of `ids` holds.
pub fn game_counts(
    conn: &mut DbConnection,
    ids: &[&CollectionId],
) -> QueryResult<Vec<(CollectionId, i64)>> {
    collection_games::table
        .filter(collection_games::collection_id.eq_any(ids))
        .group_by(collection_games::collection_id)
        .select((collection_games::collection_id, diesel::dsl::count_star()))
        .load(conn)
}

/// The place after the last game of the collection.
fn next_place(conn: &mut DbConnection, id: &CollectionId) -> QueryResult<i64> {
    let last: Option<i64> = collection_games::table
        .filter(collection_games::collection_id.eq(id))
        .select(diesel::dsl::max(collection_games::ord))
        .first(conn)?;
    Ok(last.map_or(0, |ord| ord + 1))
}

/// Files `games` in the collection after the games it holds, in their
/// order; a game it holds already keeps its place. A statement a thousand
/// games.
pub fn file(conn: &mut DbConnection, id: &CollectionId, games: &[&GameId]) -> QueryResult<()> {
    let first = next_place(conn, id)?;
    let memberships: Vec<Membership> = (first..)
        .zip(games)
        .map(|(ord, game_id)| Membership {
            collection_id: id.clone(),
            game_id: (*game_id).clone(),
            ord,
        })
        .collect();
    for chunk in memberships.chunks(1000) {
        let insert = diesel::insert_into(collection_games::table)
            .values(chunk)
            .on_conflict_do_nothing();
        execute_natively(conn, insert)?;
    }
    Ok(())
}

/// One page of a collection's games in their order, after the place
/// `after`, with each game's place.
pub fn games_page(
    conn: &mut DbConnection,
    id: &CollectionId,
    after: Option<i64>,
    limit: i64,
) -> QueryResult<Vec<(i64, GameRow)>> {
    let mut query = collection_games::table
        .inner_join(games::table)
        .filter(collection_games::collection_id.eq(id))
        .order(collection_games::ord.asc())
        .limit(limit)
        .select((collection_games::ord, GameRow::as_select()))
        .into_boxed();
    if let Some(after) = after {
        query = query.filter(collection_games::ord.gt(after));
    }
    query.load(conn)
}

/// Whether a collection that `reader` may see holds the game: a public
/// one, or one of the reader's.
pub fn seen_holding(
    conn: &mut DbConnection,
    game_id: &GameId,
    reader: Option<&AccountId>,
) -> QueryResult<bool> {
    let holding = collection_games::table
        .inner_join(collections::table)
        .filter(collection_games::game_id.eq(game_id));
    let seen = match reader {
        Some(reader) => holding
            .filter(
                collections::visibility
                    .eq(Visibility::Public)
                    .or(collections::owner_id.eq(reader)),
            )
            .select(collection_games::game_id)
            .first::<GameId>(conn)
            .optional()?,
        None => holding
            .filter(collections::visibility.eq(Visibility::Public))
            .select(collection_games::game_id)
            .first::<GameId>(conn)
            .optional()?,
    };
    Ok(seen.is_some())
}

/// The collections that hold a game.
pub fn holding(conn: &mut DbConnection, game: &GameId) -> QueryResult<Vec<CollectionId>> {
    collection_games::table
        .filter(collection_games::game_id.eq(game))
        .select(collection_games::collection_id)
        .load(conn)
}

/// The first `limit` games of a collection, in its order.
pub fn first_games(
    conn: &mut DbConnection,
    id: &CollectionId,
    limit: i64,
) -> QueryResult<Vec<GameId>> {
    collection_games::table
        .filter(collection_games::collection_id.eq(id))
        .order(collection_games::ord)
        .limit(limit)
        .select(collection_games::game_id)
        .load(conn)
}

/// Takes a game out of a collection: the game, if it is an imported game
/// no other collection holds, for the caller to delete.
pub fn remove_game(
    conn: &mut DbConnection,
    id: &CollectionId,
    game: &GameId,
) -> QueryResult<Option<GameRow>> {
    diesel::delete(collection_games::table.find((id, game))).execute(conn)?;
    let held: Option<CollectionId> = collection_games::table
        .filter(collection_games::game_id.eq(game))
        .select(collection_games::collection_id)
        .first(conn)
        .optional()?;
    if held.is_some() {
        return Ok(None);
    }
    games::table
        .find(game)
        .filter(games::status.eq(GameStatus::Imported))
        .select(GameRow::as_select())
        .first(conn)
        .optional()
}

/// Deletes a collection that holds no game.
pub fn delete_empty(conn: &mut DbConnection, id: &CollectionId) -> QueryResult<()> {
    diesel::delete(collections::table.find(id))
        .execute(conn)
        .map(|_| ())
}
