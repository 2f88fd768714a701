//! Ratings per pool, and each side's rating in a rated game.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{accounts, game_ratings, ratings},
    },
    stored::{AccountId, GameId},
    views::{RatedStart, RuleKey, Side},
};

/// An account's rating in one pool.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = ratings)]
pub struct RatingRow {
    pub account_id: AccountId,
    pub rules: RuleKey,
    pub start: RatedStart,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub games: i32,
    pub rated_at: i64,
    pub established_until: Option<i64>,
}

/// One side of a rated game.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_ratings)]
pub struct GameRatingRow {
    pub game_id: GameId,
    pub color: Side,
    pub account_id: AccountId,
    pub rules: RuleKey,
    pub start: RatedStart,
    pub rating: f64,
    pub deviation: f64,
    pub rating_after: Option<f64>,
    pub deviation_after: Option<f64>,
    pub rating_change: Option<f64>,
    pub rated_at: Option<i64>,
}

/// The account's rating in a pool, if it has played there.
pub fn find(
    conn: &mut DbConnection,
    account: &AccountId,
    rules: RuleKey,
    start: RatedStart,
) -> QueryResult<Option<RatingRow>> {
    ratings::table
        .find((account, rules, start))
        .select(RatingRow::as_select())
        .first(conn)
        .optional()
}

/// The ratings in a pool of those of these accounts who have played there.
pub fn find_all(
    conn: &mut DbConnection,
    accounts: &[&AccountId],
    rules: RuleKey,
    start: RatedStart,
) -> QueryResult<Vec<RatingRow>> {
    let mut rows = Vec::with_capacity(accounts.len());
    // In portions: a statement's parameters are bounded.
    for portion in accounts.chunks(1_000) {
        rows.extend(
            ratings::table
                .filter(ratings::account_id.eq_any(portion))
                .filter(ratings::rules.eq(rules))
                .filter(ratings::start.eq(start))
                .select(RatingRow::as_select())
                .load(conn)?,
        );
    }
    Ok(rows)
}

/// The ratings of these accounts in a pool, held until the transaction
/// ends (a row lock on Postgres, where two of an account's games may finish
/// at once; SQLite's writer holds the database). Locked in the order of the
/// ids, so that two games of the same two players cannot deadlock.
pub fn lock_all(
    conn: &mut DbConnection,
    accounts: &[&AccountId],
    rules: RuleKey,
    start: RatedStart,
) -> QueryResult<Vec<RatingRow>> {
    let mut ids = accounts.to_vec();
    ids.sort();
    // Built twice: `eq_any` binds a list differently on each backend.
    macro_rules! query {
        () => {
            ratings::table
                .filter(ratings::account_id.eq_any(&ids))
                .filter(ratings::rules.eq(rules))
                .filter(ratings::start.eq(start))
                .order(ratings::account_id)
                .select(RatingRow::as_select())
        };
    }
    match conn {
        DbConnection::Postgresql(pg) => query!().for_update().load(pg),
        DbConnection::Sqlite(_) => query!().load(conn),
    }
}

/// Stores a rating as a game left it.
pub fn save(conn: &mut DbConnection, row: &RatingRow) -> QueryResult<()> {
    diesel::update(ratings::table.find((&row.account_id, row.rules, row.start)))
        .set(row)
        .execute(conn)
        .map(|_| ())
}

/// Makes sure each account has a rating row in the pool, so that it can be
/// locked: a new player's is inserted once (a second insert racing it does
/// nothing).
pub fn ensure(conn: &mut DbConnection, rows: &[RatingRow]) -> QueryResult<()> {
    for row in rows {
        let insert = diesel::insert_into(ratings::table)
            .values(row)
            .on_conflict_do_nothing();
        execute_natively(conn, insert)?;
    }
    Ok(())
}

/// An account's ratings in every pool.
pub fn of_account(conn: &mut DbConnection, account: &AccountId) -> QueryResult<Vec<RatingRow>> {
    ratings::table
        .filter(ratings::account_id.eq(account))
        .order((ratings::rules, ratings::start))
        .select(RatingRow::as_select())
        .load(conn)
}

/// A page of a pool's ratings established at `now` and rated since
/// `active_since`, highest first, after `(rating, account)` of the page
/// before; with usernames.
pub fn leaders(
    conn: &mut DbConnection,
    rules: RuleKey,
    start: RatedStart,
    now: i64,
    active_since: i64,
    after: Option<(f64, String)>,
    limit: i64,
) -> QueryResult<Vec<(RatingRow, String)>> {
    let mut query = ratings::table
        .inner_join(accounts::table)
        .filter(ratings::rules.eq(rules))
        .filter(ratings::start.eq(start))
        .filter(ratings::established_until.gt(now))
        .filter(ratings::rated_at.gt(active_since))
        .order((ratings::rating.desc(), ratings::account_id.asc()))
        .limit(limit)
        .select((RatingRow::as_select(), accounts::username))
        .into_boxed();
    if let Some((rating, id)) = after {
        query = query
            .filter(ratings::rating.le(rating))
            .filter(ratings::rating.lt(rating).or(ratings::account_id.gt(id)));
    }
    query.load(conn)
}

pub fn insert_sides(conn: &mut DbConnection, rows: &[GameRatingRow]) -> QueryResult<()> {
    for row in rows {
        diesel::insert_into(game_ratings::table)
            .values(row)
            .execute(conn)?;
    }
    Ok(())
}

/// Forgets the sides seated for a game that counts for no rating.
pub fn remove_sides(conn: &mut DbConnection, game: &GameId) -> QueryResult<()> {
    diesel::delete(game_ratings::table.filter(game_ratings::game_id.eq(game)))
        .execute(conn)
        .map(|_| ())
}

/// Both sides of a rated game, White first.
pub fn sides_of(conn: &mut DbConnection, game: &GameId) -> QueryResult<Vec<GameRatingRow>> {
    game_ratings::table
        .filter(game_ratings::game_id.eq(game))
        .order(game_ratings::color.desc())
        .select(GameRatingRow::as_select())
        .load(conn)
}

/// The sides of these rated games, White's before Black's in each.
pub fn sides_of_games(
    conn: &mut DbConnection,
    games: &[&GameId],
) -> QueryResult<Vec<GameRatingRow>> {
    game_ratings::table
        .filter(game_ratings::game_id.eq_any(games))
        .order((game_ratings::game_id, game_ratings::color.desc()))
        .select(GameRatingRow::as_select())
        .load(conn)
}

/// Records what the finished game did to one side's rating.
pub fn settle_side(
    conn: &mut DbConnection,
    game: &GameId,
    color: Side,
    after: &RatingRow,
    change: f64,
) -> QueryResult<()> {
    diesel::update(game_ratings::table.find((game, color)))
        .set((
            game_ratings::rating_after.eq(after.rating),
            game_ratings::deviation_after.eq(after.deviation),
            game_ratings::rating_change.eq(change),
            game_ratings::rated_at.eq(after.rated_at),
        ))
        .execute(conn)
        .map(|_| ())
}

/// A page of an account's rated games in a pool, oldest first, after the
/// `(rated_at, game)` of the page before.
pub fn history(
    conn: &mut DbConnection,
    account: &AccountId,
    rules: RuleKey,
    start: RatedStart,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<GameRatingRow>> {
    let mut query = game_ratings::table
        .filter(game_ratings::account_id.eq(account))
        .filter(game_ratings::rules.eq(rules))
        .filter(game_ratings::start.eq(start))
        .filter(game_ratings::rated_at.is_not_null())
        .order((game_ratings::rated_at.asc(), game_ratings::game_id.asc()))
        .limit(limit)
        .select(GameRatingRow::as_select())
        .into_boxed();
    if let Some((at, id)) = after {
        query = query.filter(game_ratings::rated_at.ge(at)).filter(
            game_ratings::rated_at
                .gt(at)
                .or(game_ratings::game_id.gt(id)),
        );
    }
    query.load(conn)
}
