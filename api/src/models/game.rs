//! Games, their moves packed in their rows.

use diesel::{
    dsl,
    pg::Pg,
    prelude::*,
    query_builder::{AsChangeset, AstPass, QueryFragment, QueryId},
};
use kingpost_core::Color;

use crate::{
    db::{
        DbConnection, KeptUpdate, kept_update,
        schema::{game_positions, games},
    },
    models::{
        annotation,
        position_index::{self, PositionRow},
    },
    names,
    stored::{AccountId, GameId},
};

use crate::stored::text_enum;
pub use crate::views::{GameResult, GameStatus, RuleKey, Termination};

text_enum! {
    /// How a game's or a challenge's start is stored: its kind, beside a
    /// number (Chess960, Shuffle) or a FEN.
    pub enum StartKind ("start kind") {
        Standard = "standard",
        Chess960 = "chess960",
        Shuffle = "shuffle",
        Prechess = "prechess",
        Fen = "fen",
    }
}

/// A game row: everything a move request needs, without replaying history.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = games, treat_none_as_default_value = false)]
pub struct GameRow {
    pub id: GameId,
    pub rules: RuleKey,
    pub start_kind: StartKind,
    pub start_number: Option<i32>,
    pub initial_fen: String,
    /// The repetition key of the start position.
    pub initial_key: i64,
    pub current_fen: String,
    pub ply: i32,
    pub status: GameStatus,
    pub result: Option<GameResult>,
    pub termination: Option<Termination>,
    /// The players' accounts; none for an imported game.
    pub white_id: Option<AccountId>,
    pub black_id: Option<AccountId>,
    pub white_name: String,
    pub black_name: String,
    /// The account to move; none once the game is over.
    pub to_move_id: Option<AccountId>,
    pub days_per_move: i32,
    pub deadline_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    pub imported_by: Option<AccountId>,
    /// Recognises the same game imported again.
    pub import_key: Option<String>,
    /// The tags of an imported game's PGN, as JSON pairs.
    pub source_tags: Option<String>,
    /// When the side to move began its turn.
    pub turn_started_at: i64,
    /// The account whose draw offer stands.
    pub draw_offer_by: Option<AccountId>,
    /// The ply whose deadline-near event was sent.
    pub warned_ply: Option<i32>,
    /// A standard game's ECO code and opening name, once it reached a
    /// named position.
    pub eco: Option<String>,
    pub opening: Option<String>,
    /// The day it was played, in PGN's form: the day a played game began,
    /// an imported game's `Date` tag (when it is one).
    pub played_on: Option<String>,
    /// Whether the game moves its players' ratings when it finishes.
    pub rated: bool,
    /// A clock that carries time over, as JSON (see `ClockSpec`); none
    /// for days per move.
    pub clock: Option<String>,
    /// Under such a clock, the bank of the side not to move, in
    /// milliseconds, as its last move left it (the mover's is its deadline).
    pub waiting_bank: Option<i64>,
    /// Whether a player holds conditional lines in the game: written with
    /// the lines (`models::conditional`), never by a change of the game.
    pub holds_conditionals: bool,
    /// An imported game's own `ECO` and `Opening` tags, as written: what a
    /// search by code or name matches first.
    pub tagged_eco: Option<String>,
    pub tagged_opening: Option<String>,
    /// Each side's name as searches compare it (`names::key`).
    pub white_surname: Option<String>,
    pub white_first: Option<String>,
    pub black_surname: Option<String>,
    pub black_first: Option<String>,
    /// The moves, packed (docs/spec/packed-moves.md).
    pub moves: Vec<u8>,
    /// When each move was played, packed (`models::move_times`); none when
    /// no move's time is known.
    pub move_times: Option<Vec<u8>>,
    /// The repetition keys of the positions since the last capture or pawn
    /// move, the current one last (`domain::game::moves::recent_keys`);
    /// none until a move writes them.
    pub recent_keys: Option<Vec<u8>>,
    /// Whether a player's vacation stops this game's clock (its event's
    /// rule; always for a game from a challenge).
    pub vacation_allowed: bool,
}

/// The state of a game that changes as it goes on.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = games, treat_none_as_null = true)]
pub struct GameAdvance {
    pub current_fen: String,
    pub ply: i32,
    pub status: GameStatus,
    pub result: Option<GameResult>,
    pub termination: Option<Termination>,
    pub to_move_id: Option<AccountId>,
    pub deadline_at: Option<i64>,
    pub updated_at: i64,
    pub turn_started_at: i64,
    pub draw_offer_by: Option<AccountId>,
    pub warned_ply: Option<i32>,
    pub eco: Option<String>,
    pub opening: Option<String>,
    pub waiting_bank: Option<i64>,
    pub moves: Vec<u8>,
    pub move_times: Option<Vec<u8>>,
    pub recent_keys: Option<Vec<u8>>,
}

impl GameAdvance {
    pub fn of(row: &GameRow) -> GameAdvance {
        GameAdvance {
            current_fen: row.current_fen.clone(),
            ply: row.ply,
            status: row.status,
            result: row.result,
            termination: row.termination,
            to_move_id: row.to_move_id.clone(),
            deadline_at: row.deadline_at,
            updated_at: row.updated_at,
            turn_started_at: row.turn_started_at,
            draw_offer_by: row.draw_offer_by.clone(),
            warned_ply: row.warned_ply,
            waiting_bank: row.waiting_bank,
            eco: row.eco.clone(),
            opening: row.opening.clone(),
            moves: row.moves.clone(),
            move_times: row.move_times.clone(),
            recent_keys: row.recent_keys.clone(),
        }
    }
}

impl GameRow {
    /// Keeps each side's name as searches compare it.
    pub fn with_name_keys(mut self) -> GameRow {
        let (white, black) = (names::key(&self.white_name), names::key(&self.black_name));
        self.white_surname = Some(white.surname);
        self.white_first = Some(white.first);
        self.black_surname = Some(black.surname);
        self.black_first = Some(black.first);
        self
    }

    /// The account playing `color`; none in an imported game.
    pub fn player(&self, color: Color) -> Option<&AccountId> {
        match color {
            Color::White => self.white_id.as_ref(),
            Color::Black => self.black_id.as_ref(),
        }
    }

    /// The colour the account plays, if it plays.
    pub fn color_of(&self, account_id: &AccountId) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&color| self.player(color) == Some(account_id))
    }
}

/// Inserts a new game, with its start in the position index.
pub fn insert(conn: &mut DbConnection, game: &GameRow) -> QueryResult<()> {
    diesel::insert_into(games::table)
        .values(game)
        .execute(conn)?;
    let start = PositionRow {
        position_key: game.initial_key,
        game_id: game.id.clone(),
        next: position_index::NO_MOVE,
        ply: 0,
    };
    position_index::insert(conn, &[start])
}

/// Deletes an imported game, whose positions have the keys `keys`, with
/// its notes and its rows in the position index.
pub fn delete_imported(conn: &mut DbConnection, id: &GameId, keys: &[i64]) -> QueryResult<()> {
    position_index::delete_game(conn, id, keys)?;
    annotation::delete_notes(conn, std::slice::from_ref(id))?;
    diesel::delete(games::table.find(id)).execute(conn)?;
    Ok(())
}

/// Games inserted by one statement of [`insert_all_unless_imported`]:
/// within SQLite's limit of bound parameters (43 a game).
const GAMES_A_STATEMENT: usize = 200;

/// Inserts imported games, each unless a game with its import key is
/// stored (or being stored by a transaction this one then waits for): the
/// ids of those inserted. A statement a few hundred games, with no read of
/// the keys before it nor a savepoint to undo a failed insert.
pub fn insert_all_unless_imported(
    conn: &mut DbConnection,
    rows: &[GameRow],
) -> QueryResult<Vec<GameId>> {
    let mut inserted = Vec::with_capacity(rows.len());
    for chunk in rows.chunks(GAMES_A_STATEMENT) {
        let insert = diesel::insert_into(games::table)
            .values(chunk)
            .on_conflict(games::import_key)
            .do_nothing()
            .returning(games::id);
        let ids: Vec<GameId> = match conn {
            DbConnection::Postgresql(pg) => insert.load(pg)?,
            DbConnection::Sqlite(sqlite) => insert.load(sqlite)?,
        };
        inserted.extend(ids);
    }
    Ok(inserted)
}

/// A game row that cannot be read, named: a list query fails as a whole
/// on one stored value the code does not know, and says which game.
#[derive(Debug)]
struct UnreadableGame {
    id: GameId,
    cause: Box<dyn std::error::Error + Send + Sync>,
}

impl std::fmt::Display for UnreadableGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "game {}: {}", self.id, self.cause)?;
        if let Some(source) = self.cause.source() {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnreadableGame {}

/// The games `query` finds. When one cannot be read, the ids the query
/// finds are read one by one for the first that fails, and the error names
/// it (the cost is paid on that error alone).
fn load_games<'a>(
    conn: &mut DbConnection,
    query: impl Fn() -> games::BoxedQuery<'a, crate::db::MultiBackend>,
) -> QueryResult<Vec<GameRow>> {
    use diesel::result::Error::DeserializationError;
    let why = match query().select(GameRow::as_select()).load(conn) {
        Err(DeserializationError(why)) => why,
        other => return other,
    };
    let ids: Vec<GameId> = query().select(games::id).load(conn)?;
    for id in ids {
        if let Err(DeserializationError(cause)) = find(conn, &id) {
            return Err(DeserializationError(Box::new(UnreadableGame { id, cause })));
        }
    }
    Err(DeserializationError(why))
}

pub fn find(conn: &mut DbConnection, id: &GameId) -> QueryResult<Option<GameRow>> {
    games::table
        .find(id)
        .select(GameRow::as_select())
        .first(conn)
        .optional()
}

/// Stores a game as unrated.
pub fn unrate(conn: &mut DbConnection, id: &GameId) -> QueryResult<()> {
    diesel::update(games::table.find(id))
        .set(games::rated.eq(false))
        .execute(conn)
        .map(|_| ())
}

/// The game's row, held until the transaction ends against every other
/// change to the game: a row lock on Postgres, where transactions on one
/// game would otherwise interleave; SQLite's writer already holds the
/// database's write lock.
pub fn find_for_update(conn: &mut DbConnection, id: &GameId) -> QueryResult<Option<GameRow>> {
    match conn {
        DbConnection::Postgresql(pg) => games::table
            .find(id)
            .select(GameRow::as_select())
            .for_update()
            .first(pg)
            .optional(),
        DbConnection::Sqlite(_) => find(conn, id),
    }
}

/// Stores `row`'s new state if the game is still as it was read: at ply
/// `ply`, under way, last changed at `updated_at`. The guard that lets only
/// one of two racing changes through, on any instance.
fn advance(conn: &mut DbConnection, row: &GameRow, ply: i32, updated_at: i64) -> QueryResult<bool> {
    advance_update(row, ply, updated_at)
        .execute(conn)
        .map(|n| n == 1)
}

/// The guard of [`advance`]: the game as it was read, under way.
type Guard<'a> = dsl::And<
    dsl::And<
        dsl::And<dsl::Eq<games::id, &'a GameId>, dsl::Eq<games::ply, i32>>,
        dsl::Eq<games::updated_at, i64>,
    >,
    dsl::Eq<games::status, GameStatus>,
>;

/// The update [`advance`] runs: on every move, so kept prepared.
fn advance_update(
    row: &GameRow,
    ply: i32,
    updated_at: i64,
) -> KeptUpdate<games::table, Guard<'_>, <GameAdvance as AsChangeset>::Changeset> {
    let guard = games::id
        .eq(&row.id)
        .and(games::ply.eq(ply))
        .and(games::updated_at.eq(updated_at))
        .and(games::status.eq(GameStatus::Started));
    kept_update(games::table, guard, GameAdvance::of(row))
}

/// What a change that played moves writes to the position index beside
/// the game: the position it left (whose row had no move), and a row for
/// each position a move was played from and for the one reached.
#[derive(Debug, Default)]
pub struct IndexChange {
    pub left: i64,
    pub rows: Vec<PositionRow>,
}

/// Up to this many index rows (a move and the conditional replies it sets
/// off) are written in the game's update on Postgres (see
/// [`advance_playing`]), one statement a count kept prepared.
const FEW_ROWS: usize = 10;

/// [`advance`], and if it stored the change, the index rows of the moves
/// it played. On Postgres one statement, where each is a round trip: the
/// index is written only if the update changed the game.
pub fn advance_playing(
    conn: &mut DbConnection,
    row: &GameRow,
    ply: i32,
    updated_at: i64,
    moved: Option<&IndexChange>,
) -> QueryResult<bool> {
    match (conn, moved) {
        (DbConnection::Postgresql(pg), Some(moved)) if moved.rows.len() <= FEW_ROWS => {
            let update = advance_update(row, ply, updated_at);
            let game = &row.id;
            let advanced: i64 = AdvancePlaying {
                update,
                game,
                moved,
            }
            .get_result(pg)?;
            Ok(advanced == 1)
        }
        (conn, moved) => {
            let advanced = advance(conn, row, ply, updated_at)?;
            if advanced && let Some(moved) = moved {
                position_index::leave(conn, &row.id, moved.left)?;
                position_index::insert(conn, &moved.rows)?;
            }
            Ok(advanced)
        }
    }
}

/// `WITH advanced AS (update RETURNING 1), left AS (DELETE the row of the
/// position left), reached AS (INSERT the new rows ON CONFLICT DO NOTHING)
/// SELECT COUNT(*) FROM advanced`, the index written only if the game was:
/// written out so that the connection keeps it prepared (one statement for
/// each count of rows).
struct AdvancePlaying<'a, U> {
    update: U,
    game: &'a GameId,
    moved: &'a IndexChange,
}

impl<U> QueryId for AdvancePlaying<'_, U> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<U> diesel::query_builder::Query for AdvancePlaying<'_, U> {
    type SqlType = diesel::sql_types::BigInt;
}

impl<U: QueryFragment<Pg>> QueryFragment<Pg> for AdvancePlaying<'_, U> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        use diesel::{Column, sql_types::*};
        const ADVANCED: &str = "EXISTS (SELECT 1 FROM advanced)";
        out.push_sql("WITH advanced AS (");
        self.update.walk_ast(out.reborrow())?;
        out.push_sql(" RETURNING 1), left_position AS (DELETE FROM ");
        out.push_identifier("game_positions")?;
        out.push_sql(" WHERE ");
        out.push_identifier(game_positions::position_key::NAME)?;
        out.push_sql(" = ");
        out.push_bind_param::<BigInt, _>(&self.moved.left)?;
        out.push_sql(" AND ");
        out.push_identifier(game_positions::game_id::NAME)?;
        out.push_sql(" = ");
        out.push_bind_param::<Text, _>(self.game)?;
        out.push_sql(" AND ");
        out.push_identifier(game_positions::next::NAME)?;
        out.push_sql(&format!(
            " = {} AND {ADVANCED}), reached AS (INSERT INTO ",
            position_index::NO_MOVE
        ));
        out.push_identifier("game_positions")?;
        let columns = [
            game_positions::position_key::NAME,
            game_positions::game_id::NAME,
            game_positions::next::NAME,
            game_positions::ply::NAME,
        ];
        for (i, column) in columns.into_iter().enumerate() {
            out.push_sql(if i == 0 { " (" } else { ", " });
            out.push_identifier(column)?;
        }
        out.push_sql(") SELECT * FROM (VALUES ");
        for (i, r) in self.moved.rows.iter().enumerate() {
            out.push_sql(if i == 0 { "(" } else { ", (" });
            out.push_bind_param::<BigInt, _>(&r.position_key)?;
            out.push_sql(", ");
            out.push_bind_param::<Text, _>(&r.game_id)?;
            out.push_sql(", ");
            out.push_bind_param::<SmallInt, _>(&r.next)?;
            out.push_sql(", ");
            out.push_bind_param::<Integer, _>(&r.ply)?;
            out.push_sql(")");
        }
        out.push_sql(&format!(
            ") AS played WHERE {ADVANCED} ON CONFLICT DO NOTHING) SELECT COUNT(*) FROM advanced"
        ));
        Ok(())
    }
}

impl<U> RunQueryDsl<PgConnection> for AdvancePlaying<'_, U> {}

/// Orders a boxed query of games by `$key` (`asc` or `desc`), then by id,
/// and keeps what comes after the cursor `(key, id)` of the last page: the
/// bound on the key alone lets the key's index give the range, the second
/// condition breaks ties by id. The id is `games::id` in the database's
/// order, or an expression given last (see [`ids_in_byte_order`]). Keyset
/// paging, written once.
macro_rules! keyset_page {
    ($query:expr, $key:expr, $direction:ident, $after:expr) => {
        keyset_page!($query, $key, $direction, $after, games::id)
    };
    ($query:expr, $key:expr, asc, $after:expr, $id:expr) => {{
        let id = $id;
        let query = $query.order(($key.asc(), id.clone().asc()));
        match $after {
            Some((key, after_id)) => query
                .filter($key.ge(key))
                .filter($key.gt(key).or(id.gt(after_id))),
            None => query,
        }
    }};
    ($query:expr, $key:expr, desc, $after:expr, $id:expr) => {{
        let id = $id;
        let query = $query.order(($key.desc(), id.clone().asc()));
        match $after {
            Some((key, after_id)) => query
                .filter($key.le(key))
                .filter($key.lt(key).or(id.gt(after_id))),
            None => query,
        }
    }};
}

/// Game ids ordered by their bytes, as the merge of a player's games as
/// White and as Black compares them in Rust: a page's ties on its key then
/// break alike on both sides of the cursor, whatever the database's
/// collation (an ICU one orders `a` before `B`).
fn ids_in_byte_order(
    conn: &DbConnection,
) -> diesel::expression::SqlLiteral<diesel::sql_types::Text> {
    diesel::dsl::sql(&format!("games.id{}", super::byte_order(conn)))
}

/// A page of games under way in order of deadline and id, after the
/// cursor `(deadline, id)` of the last page.
fn under_way_by_deadline(
    after: Option<&(i64, String)>,
    limit: i64,
) -> games::BoxedQuery<'_, crate::db::MultiBackend> {
    let query = games::table
        .filter(games::status.eq(GameStatus::Started))
        .limit(limit)
        .into_boxed();
    keyset_page!(
        query,
        games::deadline_at,
        asc,
        after.map(|(d, id)| (*d, id))
    )
}

/// Games under way whose deadline (before vacations) has passed: a page
/// after `after` (see [`under_way_by_deadline`]).
pub fn past_deadline(
    conn: &mut DbConnection,
    now: i64,
    after: Option<&(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    load_games(conn, || {
        under_way_by_deadline(after, limit).filter(games::deadline_at.lt(now))
    })
}

/// When a game's deadline warning falls due, in SQL: `sweep::warning_window`
/// before the deadline (a quarter of the turn, at most a day), in the
/// very words of the index `games_by_warning`, which the planners use only
/// for the same expression.
const WARNING_TIME: &str = "deadline_at - CASE WHEN (deadline_at - turn_started_at) / 4 < 86400000 \
     THEN (deadline_at - turn_started_at) / 4 ELSE 86400000 END";

/// Games under way whose side to move has not been warned at this ply,
/// whose deadline (before vacations) is ahead and whose warning time
/// ([`WARNING_TIME`]) has come. A page in order of warning time and id,
/// after the cursor `after` of the last.
pub fn warnings_due(
    conn: &mut DbConnection,
    now: i64,
    after: Option<&(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    use diesel::{dsl::sql, sql_types::BigInt};
    let warning_time = || sql::<BigInt>(WARNING_TIME);
    let after = after.map(|(key, id)| (*key, id.as_str()));
    load_games(conn, || {
        let query = games::table
            .filter(games::status.eq(GameStatus::Started))
            .filter(warning_time().le(now))
            .filter(games::deadline_at.gt(now))
            .filter(
                games::warned_ply
                    .is_null()
                    .or(games::warned_ply.ne(games::ply.nullable())),
            )
            .limit(limit)
            .into_boxed();
        keyset_page!(query, warning_time(), asc, after)
    })
}

/// The games of `account_id`, found through the player indexes (the side
/// to move, which every move changes, has no index).
fn of_player(account_id: &AccountId) -> games::BoxedQuery<'_, crate::db::MultiBackend> {
    games::table
        .filter(
            games::white_id
                .eq(account_id)
                .or(games::black_id.eq(account_id)),
        )
        .into_boxed()
}

/// Games under way where `account_id` is to move.
pub fn awaiting(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<Vec<GameRow>> {
    load_games(conn, || {
        of_player(account_id)
            .filter(games::status.eq(GameStatus::Started))
            .filter(games::to_move_id.eq(account_id))
    })
}

/// The ids of the games under way that `account_id` plays.
pub fn under_way_ids(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<Vec<GameId>> {
    of_player(account_id)
        .filter(games::status.eq(GameStatus::Started))
        .select(games::id)
        .load(conn)
}

/// Whether `account_id` has played any game, finished, aborted or under way.
pub fn has_played(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<bool> {
    let any = games::table
        .filter(
            games::white_id
                .eq(account_id)
                .or(games::black_id.eq(account_id)),
        )
        .select(games::id)
        .first::<GameId>(conn)
        .optional()?;
    Ok(any.is_some())
}

/// Sets a game's deadline.
pub fn set_deadline(conn: &mut DbConnection, id: &GameId, deadline_at: i64) -> QueryResult<()> {
    diesel::update(games::table.find(id))
        .set(games::deadline_at.eq(deadline_at))
        .execute(conn)
        .map(|_| ())
}

/// Which of an account's games to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// Under way, soonest deadline first.
    Ongoing,
    /// Under way and the account to move, soonest deadline first.
    MyTurn,
    /// Over, most recently finished first.
    Finished,
}

/// One page of an account's games after the cursor `(sort key, id)`.
pub fn list(
    conn: &mut DbConnection,
    account_id: &AccountId,
    listing: Listing,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    let my_turn = match listing {
        Listing::Finished => return finished_page(conn, account_id, after, limit),
        Listing::Ongoing => false,
        Listing::MyTurn => true,
    };
    let after = after.as_ref().map(|(key, id)| (*key, id.as_str()));
    load_games(conn, || {
        let mut query = of_player(account_id)
            .filter(games::status.eq(GameStatus::Started))
            .limit(limit);
        if my_turn {
            query = query.filter(games::to_move_id.eq(account_id));
        }
        keyset_page!(query, games::deadline_at, asc, after)
    })
}

/// How many games await a move by the account.
pub fn count_my_turn(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<i64> {
    of_player(account_id)
        .filter(games::status.eq(GameStatus::Started))
        .filter(games::to_move_id.eq(account_id))
        .count()
        .get_result(conn)
}

/// Which of an account's games an archive holds.
#[derive(Debug, Clone)]
pub struct ArchiveFilter {
    pub account_id: AccountId,
    pub rules: Option<RuleKey>,
    /// Created at or after.
    pub since: Option<i64>,
    /// Created before.
    pub until: Option<i64>,
    pub finished_only: bool,
}

/// One page of an archive, oldest first, after the cursor `(created, id)`.
/// The account's games as White and as Black are read apart, each along
/// its index, and merged: one query with `OR` would sort every game of the
/// account for every page.
pub fn archive_page(
    conn: &mut DbConnection,
    filter: &ArchiveFilter,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    let white = archive_side(conn, filter, Color::White, after.clone(), limit)?;
    let black = archive_side(conn, filter, Color::Black, after, limit)?;
    Ok(merge_sides(white, black, limit, |a, b| {
        (a.created_at, &a.id).cmp(&(b.created_at, &b.id))
    }))
}

/// A page of an account's games as White and as Black, each read in
/// `order` and merged in it: a game the account played against itself is
/// in both.
fn merge_sides(
    mut white: Vec<GameRow>,
    black: Vec<GameRow>,
    limit: i64,
    order: impl Fn(&GameRow, &GameRow) -> std::cmp::Ordering,
) -> Vec<GameRow> {
    white.extend(black);
    white.sort_by(order);
    white.dedup_by(|a, b| a.id == b.id);
    white.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    white
}

/// The games `account_id` plays on `side`, along that side's indexes.
fn of_side(account_id: &AccountId, side: Color) -> games::BoxedQuery<'_, crate::db::MultiBackend> {
    match side {
        Color::White => games::table
            .filter(games::white_id.eq(account_id))
            .into_boxed(),
        Color::Black => games::table
            .filter(games::black_id.eq(account_id))
            .into_boxed(),
    }
}

/// A page of an account's finished games, most recently finished first,
/// after the cursor `(finished, id)`. The keys of a page are read along
/// each side's index of finished games (`games_finished_white`, `_black`),
/// which holds them: no row is read for them. Merged, the page's rows are
/// then read by id, a page of them, where reading them by side would read
/// two pages' rows at random places of a large file.
fn finished_page(
    conn: &mut DbConnection,
    account_id: &AccountId,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    use diesel::{dsl::sql, sql_types::Bool};
    let after = after.as_ref().map(|(key, id)| (*key, id.as_str()));
    // Written into the statement, not bound, so that the planners see that
    // it implies the indexes' own condition.
    let over = format!("status <> '{}'", GameStatus::Started.key());
    let newest_first = |a: (i64, &GameId), b: (i64, &GameId)| b.0.cmp(&a.0).then(a.1.cmp(b.1));
    let id = ids_in_byte_order(conn);
    let mut keys: Vec<(i64, GameId)> = Vec::new();
    for side in [Color::White, Color::Black] {
        let query = of_side(account_id, side)
            .filter(sql::<Bool>(&over))
            .limit(limit);
        keys.extend(
            keyset_page!(query, games::updated_at, desc, after, id.clone())
                .select((games::updated_at, games::id))
                .load::<(i64, GameId)>(conn)?,
        );
    }
    keys.sort_by(|a, b| newest_first((a.0, &a.1), (b.0, &b.1)));
    keys.dedup_by(|a, b| a.1 == b.1);
    keys.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let ids: Vec<&GameId> = keys.iter().map(|(_, id)| id).collect();
    let mut rows = load_games(conn, || {
        games::table
            .filter(games::id.eq_any(ids.clone()))
            .into_boxed()
    })?;
    // A finished game's row no longer changes: its keys are those read.
    rows.sort_by(|a, b| newest_first((a.updated_at, &a.id), (b.updated_at, &b.id)));
    Ok(rows)
}

fn archive_side(
    conn: &mut DbConnection,
    filter: &ArchiveFilter,
    side: Color,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRow>> {
    let after = after.as_ref().map(|(key, id)| (*key, id.as_str()));
    let id = ids_in_byte_order(conn);
    load_games(conn, || {
        let mut query = of_side(&filter.account_id, side).limit(limit);
        if let Some(rules) = filter.rules {
            query = query.filter(games::rules.eq(rules));
        }
        if let Some(since) = filter.since {
            query = query.filter(games::created_at.ge(since));
        }
        if let Some(until) = filter.until {
            query = query.filter(games::created_at.lt(until));
        }
        if filter.finished_only {
            query = query.filter(games::status.ne(GameStatus::Started));
        }
        keyset_page!(query, games::created_at, asc, after, id.clone())
    })
}

/// The games of `ids` (those that exist), in no order.
pub fn find_all(conn: &mut DbConnection, ids: &[&GameId]) -> QueryResult<Vec<GameRow>> {
    games::table
        .filter(games::id.eq_any(ids))
        .select(GameRow::as_select())
        .load(conn)
}

/// The games imported before with these keys, by key.
pub fn find_by_import_keys(
    conn: &mut DbConnection,
    keys: &[&str],
) -> QueryResult<Vec<(String, GameId)>> {
    let mut found = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(500) {
        found.extend(
            games::table
                .filter(games::import_key.eq_any(chunk))
                .select((games::import_key.assume_not_null(), games::id))
                .load::<(String, GameId)>(conn)?,
        );
    }
    Ok(found)
}

/// The account's finished games as `(rules, its colour, result, count)`.
pub fn results_of(
    conn: &mut DbConnection,
    account: &AccountId,
) -> QueryResult<Vec<(RuleKey, Color, GameResult, i64)>> {
    let mut counts = Vec::new();
    for color in Color::ALL {
        let query = games::table
            .filter(games::status.eq(GameStatus::Finished))
            .group_by((games::rules, games::result))
            .select((games::rules, games::result, diesel::dsl::count_star()));
        let rows: Vec<(RuleKey, Option<GameResult>, i64)> = match color {
            Color::White => query.filter(games::white_id.eq(account)).load(conn)?,
            Color::Black => query.filter(games::black_id.eq(account)).load(conn)?,
        };
        counts.extend(
            rows.into_iter()
                .filter_map(|(rules, result, n)| Some((rules, color, result?, n))),
        );
    }
    Ok(counts)
}

/// How many games the account is playing now.
pub fn count_under_way(conn: &mut DbConnection, account: &AccountId) -> QueryResult<i64> {
    games::table
        .filter(games::status.eq(GameStatus::Started))
        .filter(games::white_id.eq(account).or(games::black_id.eq(account)))
        .count()
        .get_result(conn)
}

/// Up to `limit` games whose names are not yet folded for search (stored
/// before the server folded them): their ids and names.
pub fn unfolded_names(
    conn: &mut DbConnection,
    limit: i64,
) -> QueryResult<Vec<(GameId, String, String)>> {
    games::table
        .filter(games::white_surname.is_null())
        .order(games::id)
        .limit(limit)
        .select((games::id, games::white_name, games::black_name))
        .load(conn)
}

/// Stores a game's names as searches compare them.
pub fn set_name_keys(
    conn: &mut DbConnection,
    id: &GameId,
    white: &names::NameKey,
    black: &names::NameKey,
) -> QueryResult<()> {
    diesel::update(games::table.find(id))
        .set((
            games::white_surname.eq(&white.surname),
            games::white_first.eq(&white.first),
            games::black_surname.eq(&black.surname),
            games::black_first.eq(&black.first),
        ))
        .execute(conn)
        .map(drop)
}
