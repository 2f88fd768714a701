//! Challenges: an offer of a game, to one account or open to anyone.

use diesel::prelude::*;

use crate::{
    db::{DbConnection, schema::challenges},
    models::game::StartKind,
    stored::{AccountId, GameId},
    views::{ChallengeStatus, ColorChoice, RuleKey},
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = challenges)]
pub struct ChallengeRow {
    pub id: String,
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
}

pub fn insert(conn: &mut DbConnection, row: &ChallengeRow) -> QueryResult<()> {
    diesel::insert_into(challenges::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<ChallengeRow>> {
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
    id: &str,
    status: ChallengeStatus,
    game_id: Option<&str>,
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
pub fn incoming(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<Vec<ChallengeRow>> {
    challenges::table
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(challenges::opponent_id.eq(account_id))
        .order(challenges::created_at.desc())
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

/// Open challenges to anyone, by others, newest first.
pub fn open_to_anyone(
    conn: &mut DbConnection,
    account_id: &AccountId,
    limit: i64,
) -> QueryResult<Vec<ChallengeRow>> {
    challenges::table
        .filter(challenges::status.eq(ChallengeStatus::Open))
        .filter(challenges::opponent_id.is_null())
        .filter(challenges::challenger_id.ne(account_id))
        .order(challenges::created_at.desc())
        .limit(limit)
        .select(ChallengeRow::as_select())
        .load(conn)
}
