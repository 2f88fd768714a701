//! Challenges: an offer of a game, to one account or open to anyone.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection,
        schema::{challenges, ratings},
    },
    models::game::StartKind,
    stored::{AccountId, ChallengeId, GameId},
    views::{ChallengeStatus, ColorChoice, RuleKey},
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = challenges)]
pub struct ChallengeRow {
    pub id: ChallengeId,
    pub challenger_id: AccountId,
    pub opponent_id: Option<AccountId>,
    pub rules: RuleKey,
    pub start_kind: StartKind,
    pub start_number: Option<i32>,
    pub start_fen: Option<String>,
    pub days_per_move: i32,
    pub color: ColorChoice,
    pub status: ChallengeStatus,
    pub game_id: Option<GameId>,
    pub created_at: i64,
    pub updated_at: i64,
    pub rated: bool,
    /// A seek's bounds on its acceptor's rating in the pool.
    pub rating_min: Option<i32>,
    pub rating_max: Option<i32>,
    /// A clock beside days per move, as JSON (see `ClockSpec`).
    pub clock: Option<String>,
}

pub fn insert(conn: &mut DbConnection, row: &ChallengeRow) -> QueryResult<()> {
    diesel::insert_into(challenges::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

pub fn find(conn: &mut DbConnection, id: &ChallengeId) -> QueryResult<Option<ChallengeRow>> {
    challenges::table
        .find(id)
        .select(ChallengeRow::as_select())
        .first(conn)
        .optional()
}

/// Closes an open challenge with `status`; whether it was still open (so
/// two accepts racing cannot both create a game).
pub fn close(
    conn: &mut DbConnection,
    id: &ChallengeId,
    status: ChallengeStatus,
    game_id: Option<&GameId>,
    now: i64,
) -> QueryResult<bool> {
    diesel::update(
        challenges::table
            .filter(challenges::id.eq(id))
            .filter(challenges::status.eq(ChallengeStatus::Open)),
    )
    .set((
        challenges::status.eq(status),
        challenges::game_id.eq(game_id),
        challenges::updated_at.eq(now),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// Open challenges addressed to the account.
pub fn incoming(
    conn: &mut DbConnection,
    account_id: &AccountId,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<ChallengeRow>> {
    let mut query = challenges::table
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(challenges::opponent_id.eq(account_id))
        .order((challenges::created_at.desc(), challenges::id.asc()))
        .limit(limit)
        .select(ChallengeRow::as_select())
        .into_boxed();
    if let Some((at, id)) = after {
        query = query
            .filter(challenges::created_at.le(at))
            .filter(challenges::created_at.lt(at).or(challenges::id.gt(id)));
    }
    query.load(conn)
}

/// How many open challenges the account made: to anyone (seeks) and to
/// players.
pub fn open_counts(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<(i64, i64)> {
    let open: Vec<Option<AccountId>> = challenges::table
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(challenges::challenger_id.eq(account_id))
        .select(challenges::opponent_id)
        .load(conn)?;
    let seeks = open.iter().filter(|opponent| opponent.is_none()).count() as i64;
    Ok((seeks, open.len() as i64 - seeks))
}

/// Open challenges the account made or was sent.
pub fn open_involving(
    conn: &mut DbConnection,
    account_id: &AccountId,
) -> QueryResult<Vec<ChallengeRow>> {
    challenges::table
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(
            challenges::challenger_id
                .eq(account_id)
                .or(challenges::opponent_id.eq(account_id)),
        )
        .select(ChallengeRow::as_select())
        .load(conn)
}

/// Open challenges the account made.
pub fn outgoing(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<Vec<ChallengeRow>> {
    challenges::table
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(challenges::challenger_id.eq(account_id))
        .order(challenges::created_at.desc())
        .select(ChallengeRow::as_select())
        .load(conn)
}

/// A page of open challenges to anyone, by others, newest first after the
/// `(created_at, id)` of the page before, matching `filter`, whose rating
/// range holds `account_id`'s rating in the challenge's pool (1500 where
/// it has none).
pub fn seeks(
    conn: &mut DbConnection,
    account_id: &AccountId,
    filter: &SeekFilter,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<ChallengeRow>> {
    use diesel::{dsl::sql, sql_types::Bool};
    let mut query = challenges::table
        .left_join(
            ratings::table.on(ratings::account_id
                .eq(account_id)
                .and(ratings::rules.eq(challenges::rules))
                .and(ratings::start.eq(challenges::start_kind))),
        )
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(challenges::opponent_id.is_null())
        .filter(challenges::challenger_id.ne(account_id))
        .filter(sql::<Bool>(
            "COALESCE(ratings.rating, 1500) >= COALESCE(challenges.rating_min, 0) \
             AND COALESCE(ratings.rating, 1500) <= COALESCE(challenges.rating_max, 100000)",
        ))
        .order((challenges::created_at.desc(), challenges::id.asc()))
        .limit(limit)
        .select(ChallengeRow::as_select())
        .into_boxed();
    if let Some(rules) = filter.rules {
        query = query.filter(challenges::rules.eq(rules));
    }
    if let Some(kind) = filter.start {
        query = query.filter(challenges::start_kind.eq(kind));
    }
    if let Some(days) = filter.days_per_move {
        query = query.filter(challenges::days_per_move.eq(days));
    }
    if let Some(rated) = filter.rated {
        query = query.filter(challenges::rated.eq(rated));
    }
    if let Some((at, id)) = after {
        query = query
            .filter(challenges::created_at.le(at))
            .filter(challenges::created_at.lt(at).or(challenges::id.gt(id)));
    }
    query.load(conn)
}

/// What a list of seeks keeps.
#[derive(Debug, Default)]
pub struct SeekFilter {
    pub rules: Option<RuleKey>,
    pub start: Option<StartKind>,
    pub days_per_move: Option<i32>,
    pub rated: Option<bool>,
}
