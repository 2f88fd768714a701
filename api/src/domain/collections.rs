//! Collections: an account's named sets of imported games, private unless
//! made public. A private collection is seen by its owner alone: to anyone
//! else it does not exist (`404`, never `403`, so that its name leaks
//! nothing). Imports file their games into one, named or the account's
//! default.

use std::collections::HashMap;

use crate::{
    clock::Millis,
    credentials::new_id,
    db::{DbConnection, Yield, write_transaction},
    domain::{
        game::moves::position_keys,
        pgn::{archived, pgn_of_rows},
    },
    error::{ApiError, Code},
    models::{
        account,
        collection::{self, CollectionRow},
        explorer_counts,
        game::{self, GameRow},
        position_index,
    },
    stored::{AccountId, CollectionId},
    views::{
        CollectionGames, CollectionList, CollectionView, CreateCollectionRequest, PlayerView,
        Timestamp, UpdateCollectionRequest, Visibility,
    },
};

/// The collection an import files its games into when it names none.
pub const DEFAULT_NAME: &str = "Imported games";
/// How long a collection's name may be, in characters.
const NAME_LENGTH: std::ops::RangeInclusive<usize> = 1..=100;
/// The most collections an account may have.
pub const MAX_PER_ACCOUNT: i64 = 100;
/// Games on a page of a collection unless the caller asks for another number.
pub const DEFAULT_PAGE: i64 = 50;
/// The most games on a page of a collection.
pub const MAX_PAGE: i64 = 100;

/// A name as stored: trimmed, 1 to 100 characters.
fn checked_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if !NAME_LENGTH.contains(&name.chars().count()) || name.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            Code::InvalidCollectionName,
            "a collection's name has 1 to 100 characters, none of them control characters",
        ));
    }
    Ok(name.to_owned())
}

/// Refuses a new collection to an owner who has as many as allowed.
fn check_room(conn: &mut DbConnection, owner: &AccountId) -> Result<(), ApiError> {
    if collection::count_of_owner(conn, owner)? >= MAX_PER_ACCOUNT {
        return Err(ApiError::invalid(
            Code::TooManyCollections,
            format!("an account has at most {MAX_PER_ACCOUNT} collections: delete one first"),
        ));
    }
    Ok(())
}

fn name_taken(name: &str) -> ApiError {
    ApiError::Refused {
        code: Code::CollectionNameTaken,
        detail: format!("you have a collection named `{name}` already"),
    }
}

/// The views of `rows`, with their owners' names and their game counts.
fn views_of(
    conn: &mut DbConnection,
    rows: Vec<CollectionRow>,
) -> Result<Vec<CollectionView>, ApiError> {
    let ids: Vec<&CollectionId> = rows.iter().map(|r| &r.id).collect();
    let counts: HashMap<CollectionId, i64> =
        collection::game_counts(conn, &ids)?.into_iter().collect();
    let owners: Vec<&AccountId> = rows.iter().map(|r| &r.owner_id).collect();
    let names: HashMap<AccountId, String> =
        account::usernames(conn, &owners)?.into_iter().collect();
    let bots = account::bots_among(conn, &owners)?;
    Ok(rows
        .into_iter()
        .map(|row| CollectionView {
            games: counts.get(&row.id).copied().unwrap_or(0),
            owner: PlayerView {
                username: names.get(&row.owner_id).cloned().unwrap_or_default(),
                bot: bots.contains(&row.owner_id),
            },
            id: row.id.into(),
            name: row.name,
            visibility: row.visibility,
            created_at: Timestamp(row.created_at),
            updated_at: Timestamp(row.updated_at),
        })
        .collect())
}

fn view_of(conn: &mut DbConnection, row: CollectionRow) -> Result<CollectionView, ApiError> {
    let mut views = views_of(conn, vec![row])?;
    views
        .pop()
        .ok_or_else(|| ApiError::Internal("a collection without its view".to_owned()))
}

/// The collection `id` if `reader` may see it: its owner, or anyone when
/// it is public. Otherwise, as when there is none, `404`.
pub fn visible(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    id: &CollectionId,
) -> Result<CollectionRow, ApiError> {
    collection::find(conn, id)?
        .filter(|row| row.visibility == Visibility::Public || Some(&row.owner_id) == reader)
        .ok_or_else(|| ApiError::NotFound(format!("collection {id}")))
}

/// The collection `id` if `owner` owns it; otherwise `404`.
fn owned(
    conn: &mut DbConnection,
    owner: &AccountId,
    id: &CollectionId,
) -> Result<CollectionRow, ApiError> {
    let row = visible(conn, Some(owner), id)?;
    if row.owner_id != *owner {
        return Err(ApiError::Forbidden(
            "only its owner may change a collection".to_owned(),
        ));
    }
    Ok(row)
}

/// Makes a collection for `owner`.
pub fn create(
    conn: &mut DbConnection,
    owner: &AccountId,
    request: CreateCollectionRequest,
    now: Millis,
) -> Result<CollectionView, ApiError> {
    let name = checked_name(&request.name)?;
    write_transaction(conn, |conn| {
        if collection::find_by_name(conn, owner, &name)?.is_some() {
            return Err(name_taken(&name));
        }
        check_room(conn, owner)?;
        let row = CollectionRow {
            id: new_id().into(),
            owner_id: owner.clone(),
            name: name.clone(),
            visibility: request.visibility,
            created_at: now,
            updated_at: now,
        };
        if !collection::insert_unless_named(conn, &row)? {
            return Err(name_taken(&name));
        }
        view_of(conn, row)
    })
}

/// The collections of `owner` (all of them), or of `username` (the public
/// ones, unless the reader is that user).
pub fn list(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    username: &str,
) -> Result<CollectionList, ApiError> {
    let owner = account::find_by_username(conn, username)?
        .ok_or_else(|| ApiError::NotFound(format!("user `{username}`")))?;
    let rows = collection::of_owner(conn, &owner.id, reader == Some(&owner.id))?;
    Ok(CollectionList {
        collections: views_of(conn, rows)?,
    })
}

/// The caller's own collections, private ones too.
pub fn list_own(conn: &mut DbConnection, owner: &AccountId) -> Result<CollectionList, ApiError> {
    let rows = collection::of_owner(conn, owner, true)?;
    Ok(CollectionList {
        collections: views_of(conn, rows)?,
    })
}

/// One collection, if the reader may see it.
pub fn view(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    id: &CollectionId,
) -> Result<CollectionView, ApiError> {
    let row = visible(conn, reader, id)?;
    view_of(conn, row)
}

/// Renames a collection, or changes who may see it.
pub fn update(
    conn: &mut DbConnection,
    owner: &AccountId,
    id: &CollectionId,
    request: UpdateCollectionRequest,
    now: Millis,
) -> Result<CollectionView, ApiError> {
    let name = request.name.as_deref().map(checked_name).transpose()?;
    write_transaction(conn, |conn| {
        let mut row = owned(conn, owner, id)?;
        if let Some(name) = name.clone().filter(|name| *name != row.name) {
            if collection::find_by_name(conn, owner, &name)?.is_some() {
                return Err(name_taken(&name));
            }
            row.name = name;
        }
        if let Some(visibility) = request.visibility {
            row.visibility = visibility;
        }
        row.updated_at = now;
        collection::update(conn, &row)?;
        view_of(conn, row)
    })
}

/// Games a step of a deletion reads at once: it ends sooner when a
/// request waits for the writers' turn.
const DELETED_AT_ONCE: i64 = 500;

/// Rows of the explorer's counts a deletion deletes between two looks at
/// the writers waiting: a few milliseconds of SQLite's work.
const COUNTS_DELETED_AT_ONCE: i64 = 1_000;

/// Rows of the explorer's counts a step of a deletion deletes at most:
/// about what a step of games deletes from the position index.
const COUNTS_DELETED_A_STEP: i64 = 20_000;

/// One step of deleting a collection (its owner's to delete) and the games
/// it held that no other holds: its explorer counts first (the explorer
/// leaves it at once), then some of its games taken out, each step in a
/// transaction of its own, and, when it holds none, the collection
/// itself. Whether it is gone; a deletion interrupted (the server stopped)
/// leaves a smaller collection that deleting again finishes.
pub fn delete_step(
    conn: &mut DbConnection,
    owner: &AccountId,
    id: &CollectionId,
    yielding: &dyn Yield,
) -> Result<bool, ApiError> {
    write_transaction(conn, |conn| {
        owned(conn, owner, id)?;
        // First, so that a merge of staged rows never waits for this
        // step's rows while this waits for it.
        position_index::hold_staged(conn)?;
        let mut counts = 0;
        loop {
            let deleted =
                explorer_counts::delete_part_of_scope(conn, id, COUNTS_DELETED_AT_ONCE)? as i64;
            counts += deleted;
            if deleted < COUNTS_DELETED_AT_ONCE {
                break;
            }
            if counts >= COUNTS_DELETED_A_STEP || yielding.now() {
                return Ok(false);
            }
        }
        let games = collection::first_games(conn, id, DELETED_AT_ONCE)?;
        for (done, game) in games.iter().enumerate() {
            if done > 0 && yielding.now() {
                return Ok(false);
            }
            if let Some(row) = collection::remove_game(conn, id, game)? {
                game::delete_imported(conn, &row.id, &position_keys(&row)?)?;
            }
        }
        if (games.len() as i64) < DELETED_AT_ONCE {
            explorer_counts::forget_scope(conn, id)?;
            collection::delete_empty(conn, id)?;
            return Ok(true);
        }
        Ok(false)
    })
}

/// A page of a collection's games, after the place `after`, and the place
/// to go on from.
fn page(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    id: &CollectionId,
    after: Option<i64>,
    limit: i64,
) -> Result<(Vec<GameRow>, Option<i64>), ApiError> {
    visible(conn, reader, id)?;
    let rows = collection::games_page(conn, id, after, limit + 1)?;
    let has_more = rows.len() as i64 > limit;
    let rows: Vec<(i64, GameRow)> = rows.into_iter().take(limit as usize).collect();
    let next = rows.last().filter(|_| has_more).map(|(ord, _)| *ord);
    Ok((rows.into_iter().map(|(_, row)| row).collect(), next))
}

/// A page of a collection's games, as JSON.
pub fn games(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    id: &CollectionId,
    after: Option<i64>,
    limit: i64,
) -> Result<CollectionGames, ApiError> {
    let (rows, next) = page(conn, reader, id, after, limit)?;
    Ok(CollectionGames {
        games: rows.into_iter().map(archived).collect::<Result<_, _>>()?,
        next_cursor: next.map(|ord| ord.to_string()),
    })
}

/// A page of a collection's games as PGN, with the place to go on from.
pub fn pgn_page(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    id: &CollectionId,
    after: Option<i64>,
    limit: i64,
) -> Result<(String, Option<i64>), ApiError> {
    let (rows, next) = page(conn, reader, id, after, limit)?;
    Ok((pgn_of_rows(conn, &rows)?, next))
}

/// The owner's collection named `name` (the default one when none is
/// named), made private if it does not exist: where an import files its
/// games.
pub fn for_import(
    conn: &mut DbConnection,
    owner: &AccountId,
    name: Option<&str>,
    now: Millis,
) -> Result<CollectionId, ApiError> {
    let name = checked_name(name.unwrap_or(DEFAULT_NAME))?;
    write_transaction(conn, |conn| {
        if let Some(row) = collection::find_by_name(conn, owner, &name)? {
            return Ok(row.id);
        }
        check_room(conn, owner)?;
        let row = CollectionRow {
            id: new_id().into(),
            owner_id: owner.clone(),
            name: name.clone(),
            visibility: Visibility::Private,
            created_at: now,
            updated_at: now,
        };
        // Two imports of the account's (on two instances) may both make it.
        if collection::insert_unless_named(conn, &row)? {
            return Ok(row.id);
        }
        collection::find_by_name(conn, owner, &name)?
            .map(|row| row.id)
            .ok_or_else(|| ApiError::Internal(format!("collection `{name}` clashed and vanished")))
    })
}
