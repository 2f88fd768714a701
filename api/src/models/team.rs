//! Teams, their members and their invitations.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection,
        schema::{accounts, team_invites, team_members, teams},
    },
    stored::{AccountId, TeamId},
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = teams)]
pub struct TeamRow {
    pub id: TeamId,
    pub name: String,
    /// The name as compared: two teams' names never differ by case alone.
    pub name_key: String,
    pub description: String,
    /// Whether anyone may join, or only those a captain invited.
    pub open: bool,
    pub created_by: AccountId,
    pub created_at: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = team_members)]
pub struct MemberRow {
    pub team_id: TeamId,
    pub account_id: AccountId,
    pub captain: bool,
    pub joined_at: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = team_invites)]
pub struct InviteRow {
    pub team_id: TeamId,
    pub account_id: AccountId,
    pub invited_by: AccountId,
    pub created_at: i64,
}

/// The key a team's name is compared by.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

pub fn insert(conn: &mut DbConnection, row: &TeamRow) -> QueryResult<()> {
    diesel::insert_into(teams::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

pub fn find(conn: &mut DbConnection, id: &TeamId) -> QueryResult<Option<TeamRow>> {
    teams::table
        .find(id)
        .select(TeamRow::as_select())
        .first(conn)
        .optional()
}

/// The team, locked until the transaction ends against joins and leaves
/// racing on Postgres (SQLite's writer holds the database).
pub fn find_for_update(conn: &mut DbConnection, id: &TeamId) -> QueryResult<Option<TeamRow>> {
    match conn {
        DbConnection::Postgresql(pg) => teams::table
            .find(id)
            .select(TeamRow::as_select())
            .for_update()
            .first(pg)
            .optional(),
        DbConnection::Sqlite(_) => find(conn, id),
    }
}

pub fn find_all(conn: &mut DbConnection, ids: &[&TeamId]) -> QueryResult<Vec<TeamRow>> {
    teams::table
        .filter(teams::id.eq_any(ids))
        .select(TeamRow::as_select())
        .load(conn)
}

/// Whether a team goes by this name, whatever its case.
pub fn name_taken(conn: &mut DbConnection, key: &str) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(
        teams::table.filter(teams::name_key.eq(key)),
    ))
    .get_result(conn)
}

/// How many teams the account made.
pub fn made_by(conn: &mut DbConnection, account: &AccountId) -> QueryResult<i64> {
    teams::table
        .filter(teams::created_by.eq(account))
        .count()
        .get_result(conn)
}

/// A page of teams, newest first, after `(created_at, id)`; only those of
/// `member` when given.
pub fn list(
    conn: &mut DbConnection,
    member: Option<&AccountId>,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<TeamRow>> {
    let mut query = teams::table
        .select(TeamRow::as_select())
        .order((teams::created_at.desc(), teams::id.desc()))
        .limit(limit)
        .into_boxed();
    if let Some(member) = member {
        query = query.filter(
            teams::id.eq_any(
                team_members::table
                    .filter(team_members::account_id.eq(member.clone()))
                    .select(team_members::team_id),
            ),
        );
    }
    if let Some((at, id)) = after {
        query = query.filter(
            teams::created_at
                .lt(at)
                .or(teams::created_at.eq(at).and(teams::id.lt(id))),
        );
    }
    query.load(conn)
}

/// How many members each of these teams has.
pub fn member_counts(conn: &mut DbConnection, ids: &[&TeamId]) -> QueryResult<Vec<(TeamId, i64)>> {
    team_members::table
        .filter(team_members::team_id.eq_any(ids))
        .group_by(team_members::team_id)
        .select((team_members::team_id, diesel::dsl::count_star()))
        .load(conn)
}

/// The members with their usernames: captains first, then in the order
/// they joined.
pub fn members_of(conn: &mut DbConnection, id: &TeamId) -> QueryResult<Vec<(MemberRow, String)>> {
    team_members::table
        .inner_join(accounts::table)
        .filter(team_members::team_id.eq(id))
        .order((
            team_members::captain.desc(),
            team_members::joined_at,
            team_members::account_id,
        ))
        .select((MemberRow::as_select(), accounts::username))
        .load(conn)
}

pub fn member(
    conn: &mut DbConnection,
    id: &TeamId,
    account: &AccountId,
) -> QueryResult<Option<MemberRow>> {
    team_members::table
        .find((id, account))
        .select(MemberRow::as_select())
        .first(conn)
        .optional()
}

pub fn add_member(conn: &mut DbConnection, row: &MemberRow) -> QueryResult<()> {
    diesel::insert_into(team_members::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// Takes a member off the team; whether they were on it.
pub fn remove_member(
    conn: &mut DbConnection,
    id: &TeamId,
    account: &AccountId,
) -> QueryResult<bool> {
    diesel::delete(team_members::table.find((id, account)))
        .execute(conn)
        .map(|n| n == 1)
}

pub fn set_captain(
    conn: &mut DbConnection,
    id: &TeamId,
    account: &AccountId,
    captain: bool,
) -> QueryResult<bool> {
    diesel::update(team_members::table.find((id, account)))
        .set(team_members::captain.eq(captain))
        .execute(conn)
        .map(|n| n == 1)
}

/// The teams an account is a member of.
pub fn teams_of(conn: &mut DbConnection, account: &AccountId) -> QueryResult<Vec<TeamId>> {
    team_members::table
        .filter(team_members::account_id.eq(account))
        .select(team_members::team_id)
        .load(conn)
}

pub fn add_invite(conn: &mut DbConnection, row: &InviteRow) -> QueryResult<()> {
    diesel::insert_into(team_invites::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

pub fn invited(conn: &mut DbConnection, id: &TeamId, account: &AccountId) -> QueryResult<bool> {
    diesel::select(diesel::dsl::exists(team_invites::table.find((id, account)))).get_result(conn)
}

/// The usernames invited to the team and not yet joined.
pub fn invitees_of(conn: &mut DbConnection, id: &TeamId) -> QueryResult<Vec<String>> {
    team_invites::table
        .inner_join(accounts::table.on(accounts::id.eq(team_invites::account_id)))
        .filter(team_invites::team_id.eq(id))
        .order(team_invites::created_at)
        .select(accounts::username)
        .load(conn)
}

pub fn remove_invite(conn: &mut DbConnection, id: &TeamId, account: &AccountId) -> QueryResult<()> {
    diesel::delete(team_invites::table.find((id, account)))
        .execute(conn)
        .map(|_| ())
}

/// Withdraws every invitation of a deleted account.
pub fn remove_invites_of(conn: &mut DbConnection, account: &AccountId) -> QueryResult<()> {
    diesel::delete(team_invites::table.filter(team_invites::account_id.eq(account)))
        .execute(conn)
        .map(|_| ())
}
