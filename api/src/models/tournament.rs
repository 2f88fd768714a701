//! Tournaments, their players and their games.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{
            accounts, tournament_byes, tournament_games, tournament_pairings, tournament_players,
            tournaments,
        },
    },
    models::game::StartKind,
    stored::{AccountId, GameId, TeamId, TournamentId},
    views::{Adjudication, ByeKind, RuleKey, TournamentFormat, TournamentStatus},
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournaments)]
pub struct TournamentRow {
    pub id: TournamentId,
    pub organiser_id: AccountId,
    pub name: String,
    pub rules: RuleKey,
    pub start_kind: StartKind,
    pub start_number: Option<i32>,
    pub start_fen: Option<String>,
    pub start_per_round: bool,
    pub days_per_move: i32,
    /// A clock beside days per move, as JSON (see `ClockSpec`).
    pub clock: Option<String>,
    pub rated: bool,
    pub double_round: bool,
    pub capacity: i32,
    pub rating_min: Option<i32>,
    pub rating_max: Option<i32>,
    pub signup_deadline: i64,
    pub status: TournamentStatus,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub format: TournamentFormat,
    /// A Swiss's rounds (none until the start when left to the entries).
    pub rounds: Option<i32>,
    /// A Swiss's round paired last.
    pub round: i32,
    /// A Swiss's tie-breaks, comma-separated keys in order.
    pub tiebreaks: Option<String>,
    /// A Swiss's round deadline: days from each round's pairing.
    pub round_days: Option<i32>,
    /// What the round deadline does to games still under way.
    pub adjudication: Option<Adjudication>,
    /// When the round paired last must end, if it has a deadline.
    pub round_deadline_at: Option<i64>,
    /// Whether a player's vacation stops the clocks of its games.
    pub vacation_allowed: bool,
    /// Whether it starts once full, or only at its sign-up deadline.
    pub start_when_full: bool,
    /// A team match's teams: the home team's captain organises it.
    pub home_team_id: Option<TeamId>,
    pub away_team_id: Option<TeamId>,
    /// When a captain of the away team accepted the match.
    pub accepted_at: Option<i64>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_byes)]
pub struct ByeRow {
    pub tournament_id: TournamentId,
    pub account_id: AccountId,
    pub round: i32,
    pub kind: ByeKind,
}

/// A Swiss pair whose game is not written yet: a round's pairs are
/// stored at once, their games written a few at a time.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_pairings)]
pub struct PairingRow {
    pub tournament_id: TournamentId,
    pub round: i32,
    pub board: i32,
    pub white_id: AccountId,
    pub black_id: AccountId,
    /// The round's Chess960 or Shuffle array, drawn once for all its games.
    pub start_number: Option<i32>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_players)]
pub struct PlayerRow {
    pub tournament_id: TournamentId,
    pub account_id: AccountId,
    pub joined_at: i64,
    pub seat: Option<i32>,
    pub withdrawn_at: Option<i64>,
    pub finished_when_withdrawn: Option<i32>,
    /// In a team match: the team the player plays for.
    pub team_id: Option<TeamId>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = tournament_games)]
pub struct TournamentGameRow {
    pub game_id: GameId,
    pub tournament_id: TournamentId,
    pub round: i32,
    pub board: i32,
}

pub fn insert(conn: &mut DbConnection, row: &TournamentRow) -> QueryResult<()> {
    diesel::insert_into(tournaments::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

pub fn find(conn: &mut DbConnection, id: &TournamentId) -> QueryResult<Option<TournamentRow>> {
    tournaments::table
        .find(id)
        .select(TournamentRow::as_select())
        .first(conn)
        .optional()
}

/// The tournament, locked until the transaction ends against joins and
/// starts racing on Postgres (SQLite's writer holds the database).
pub fn find_for_update(
    conn: &mut DbConnection,
    id: &TournamentId,
) -> QueryResult<Option<TournamentRow>> {
    match conn {
        DbConnection::Postgresql(pg) => tournaments::table
            .find(id)
            .select(TournamentRow::as_select())
            .for_update()
            .first(pg)
            .optional(),
        DbConnection::Sqlite(_) => find(conn, id),
    }
}

/// How many tournaments `organiser` organised that have not ended.
pub fn unfinished_of(conn: &mut DbConnection, organiser: &AccountId) -> QueryResult<i64> {
    tournaments::table
        .filter(tournaments::organiser_id.eq(organiser))
        .filter(tournaments::status.eq_any([TournamentStatus::Open, TournamentStatus::Started]))
        .count()
        .get_result(conn)
}

/// Moves an open tournament to `status`; whether it was still open (so
/// that of two instances starting it at its deadline one does).
pub fn close_signup(
    conn: &mut DbConnection,
    id: &TournamentId,
    status: TournamentStatus,
    now: i64,
) -> QueryResult<bool> {
    let started = (status == TournamentStatus::Started).then_some(now);
    diesel::update(
        tournaments::table
            .filter(tournaments::id.eq(id))
            .filter(tournaments::status.eq(TournamentStatus::Open)),
    )
    .set((
        tournaments::status.eq(status),
        tournaments::started_at.eq(started),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// Records that a Swiss's round `round` is paired, fixing its number of
/// rounds, with its deadline; whether the round before it was the one paired last (so that
/// of two changes closing the same round, one pairs the next).
pub fn advance_round(
    conn: &mut DbConnection,
    id: &TournamentId,
    round: i32,
    rounds: i32,
    deadline: Option<i64>,
) -> QueryResult<bool> {
    diesel::update(
        tournaments::table
            .filter(tournaments::id.eq(id))
            .filter(tournaments::round.eq(round - 1)),
    )
    .set((
        tournaments::round.eq(round),
        tournaments::rounds.eq(rounds),
        tournaments::round_deadline_at.eq(deadline),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

pub fn add_bye(conn: &mut DbConnection, row: &ByeRow) -> QueryResult<()> {
    diesel::insert_into(tournament_byes::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// Stores a round's pairs, their games to be written.
pub fn add_pairings(conn: &mut DbConnection, rows: &[PairingRow]) -> QueryResult<()> {
    // In portions: a statement's parameters are bounded (SQLite's 32,766).
    for portion in rows.chunks(1_000) {
        execute_natively(
            conn,
            diesel::insert_into(tournament_pairings::table).values(portion),
        )?;
    }
    Ok(())
}

/// Up to `limit` of a tournament's pairs whose games are not written, by
/// board.
pub fn pairings_pending(
    conn: &mut DbConnection,
    id: &TournamentId,
    limit: i64,
) -> QueryResult<Vec<PairingRow>> {
    tournament_pairings::table
        .filter(tournament_pairings::tournament_id.eq(id))
        .order((tournament_pairings::round, tournament_pairings::board))
        .limit(limit)
        .select(PairingRow::as_select())
        .load(conn)
}

/// A player's pair whose game is not written, if any.
pub fn pairing_of(
    conn: &mut DbConnection,
    id: &TournamentId,
    account: &AccountId,
) -> QueryResult<Option<PairingRow>> {
    tournament_pairings::table
        .filter(tournament_pairings::tournament_id.eq(id))
        .filter(
            tournament_pairings::white_id
                .eq(account)
                .or(tournament_pairings::black_id.eq(account)),
        )
        .select(PairingRow::as_select())
        .first(conn)
        .optional()
}

/// Forgets a pair whose game is written.
pub fn remove_pairing(conn: &mut DbConnection, row: &PairingRow) -> QueryResult<()> {
    diesel::delete(tournament_pairings::table.find((&row.tournament_id, row.round, row.board)))
        .execute(conn)
        .map(|_| ())
}

/// The tournaments with pairs whose games are not written.
pub fn with_pairings_pending(conn: &mut DbConnection) -> QueryResult<Vec<TournamentId>> {
    tournament_pairings::table
        .select(tournament_pairings::tournament_id)
        .distinct()
        .load(conn)
}

/// A Swiss's byes and absences, by round.
pub fn byes_of(conn: &mut DbConnection, id: &TournamentId) -> QueryResult<Vec<ByeRow>> {
    tournament_byes::table
        .filter(tournament_byes::tournament_id.eq(id))
        .order((tournament_byes::round, tournament_byes::account_id))
        .select(ByeRow::as_select())
        .load(conn)
}

/// Marks a tournament under way finished; whether it was under way.
pub fn finish(conn: &mut DbConnection, id: &TournamentId, now: i64) -> QueryResult<bool> {
    diesel::update(
        tournaments::table
            .filter(tournaments::id.eq(id))
            .filter(tournaments::status.eq(TournamentStatus::Started)),
    )
    .set((
        tournaments::status.eq(TournamentStatus::Finished),
        tournaments::finished_at.eq(now),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// A page of tournaments, newest first, after the `(created_at, id)` of the
/// page before.
pub fn list(
    conn: &mut DbConnection,
    status: Option<TournamentStatus>,
    rules: Option<RuleKey>,
    after: Option<(i64, String)>,
    limit: i64,
) -> QueryResult<Vec<TournamentRow>> {
    let mut query = tournaments::table
        .order((tournaments::created_at.desc(), tournaments::id.asc()))
        .limit(limit)
        .select(TournamentRow::as_select())
        .into_boxed();
    if let Some(status) = status {
        query = query.filter(tournaments::status.eq(status));
    }
    if let Some(rules) = rules {
        query = query.filter(tournaments::rules.eq(rules));
    }
    if let Some((at, id)) = after {
        query = query
            .filter(tournaments::created_at.le(at))
            .filter(tournaments::created_at.lt(at).or(tournaments::id.gt(id)));
    }
    query.load(conn)
}

/// Swiss under way whose round deadline has passed with its games still
/// under way adjudicated, the earliest first.
pub fn rounds_due(conn: &mut DbConnection, now: i64, limit: i64) -> QueryResult<Vec<TournamentId>> {
    tournaments::table
        .filter(tournaments::status.eq(TournamentStatus::Started))
        .filter(tournaments::adjudication.eq(Adjudication::Draw))
        .filter(tournaments::round_deadline_at.le(now))
        .order((tournaments::round_deadline_at, tournaments::id))
        .limit(limit)
        .select(tournaments::id)
        .load(conn)
}

/// Open tournaments whose sign-up deadline has passed, the earliest first.
pub fn due_to_start(
    conn: &mut DbConnection,
    now: i64,
    limit: i64,
) -> QueryResult<Vec<TournamentId>> {
    tournaments::table
        .filter(tournaments::status.eq(TournamentStatus::Open))
        .filter(tournaments::signup_deadline.le(now))
        .order((tournaments::signup_deadline, tournaments::id))
        .limit(limit)
        .select(tournaments::id)
        .load(conn)
}

pub fn add_player(conn: &mut DbConnection, row: &PlayerRow) -> QueryResult<()> {
    diesel::insert_into(tournament_players::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// The tournaments not over that the account entered and has not
/// withdrawn from.
pub fn entered_by(conn: &mut DbConnection, account: &AccountId) -> QueryResult<Vec<TournamentId>> {
    tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournament_players::account_id.eq(account))
        .filter(tournament_players::withdrawn_at.is_null())
        .filter(tournaments::status.eq_any([TournamentStatus::Open, TournamentStatus::Started]))
        .select(tournaments::id)
        .load(conn)
}

/// Takes a player off an open tournament; whether they were on it.
pub fn remove_player(
    conn: &mut DbConnection,
    id: &TournamentId,
    account: &AccountId,
) -> QueryResult<bool> {
    diesel::delete(tournament_players::table.find((id, account)))
        .execute(conn)
        .map(|n| n == 1)
}

/// The players with their usernames, in the order they joined.
pub fn players_of(
    conn: &mut DbConnection,
    id: &TournamentId,
) -> QueryResult<Vec<(PlayerRow, String)>> {
    tournament_players::table
        .inner_join(accounts::table)
        .filter(tournament_players::tournament_id.eq(id))
        .order((
            tournament_players::joined_at,
            tournament_players::account_id,
        ))
        .select((PlayerRow::as_select(), accounts::username))
        .load(conn)
}

/// How many players each of these tournaments has.
pub fn counts(
    conn: &mut DbConnection,
    ids: &[&TournamentId],
) -> QueryResult<Vec<(TournamentId, i64)>> {
    tournament_players::table
        .filter(tournament_players::tournament_id.eq_any(ids))
        .group_by(tournament_players::tournament_id)
        .select((tournament_players::tournament_id, diesel::dsl::count_star()))
        .load(conn)
}

pub fn set_seat(
    conn: &mut DbConnection,
    id: &TournamentId,
    account: &AccountId,
    seat: i32,
) -> QueryResult<()> {
    diesel::update(tournament_players::table.find((id, account)))
        .set(tournament_players::seat.eq(seat))
        .execute(conn)
        .map(|_| ())
}

pub fn withdraw(
    conn: &mut DbConnection,
    id: &TournamentId,
    account: &AccountId,
    finished: i32,
    now: i64,
) -> QueryResult<()> {
    diesel::update(tournament_players::table.find((id, account)))
        .set((
            tournament_players::withdrawn_at.eq(now),
            tournament_players::finished_when_withdrawn.eq(finished),
        ))
        .execute(conn)
        .map(|_| ())
}

pub fn add_game(conn: &mut DbConnection, row: &TournamentGameRow) -> QueryResult<()> {
    diesel::insert_into(tournament_games::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// The tournament's games, by round and board.
pub fn games_of(conn: &mut DbConnection, id: &TournamentId) -> QueryResult<Vec<TournamentGameRow>> {
    tournament_games::table
        .filter(tournament_games::tournament_id.eq(id))
        .order((tournament_games::round, tournament_games::board))
        .select(TournamentGameRow::as_select())
        .load(conn)
}

/// The tournament a game belongs to, if any.
pub fn of_game(conn: &mut DbConnection, game: &GameId) -> QueryResult<Option<TournamentGameRow>> {
    tournament_games::table
        .find(game)
        .select(TournamentGameRow::as_select())
        .first(conn)
        .optional()
}

/// For those of these games that belong to a tournament: the tournament's
/// name, the round and the board.
pub fn rounds_of_games(
    conn: &mut DbConnection,
    games: &[&GameId],
) -> QueryResult<Vec<(GameId, String, i32, i32)>> {
    tournament_games::table
        .inner_join(tournaments::table.on(tournaments::id.eq(tournament_games::tournament_id)))
        .filter(tournament_games::game_id.eq_any(games))
        .select((
            tournament_games::game_id,
            tournaments::name,
            tournament_games::round,
            tournament_games::board,
        ))
        .load(conn)
}

/// Records that the away team accepted a team match; whether it had not.
pub fn accept(conn: &mut DbConnection, id: &TournamentId, now: i64) -> QueryResult<bool> {
    diesel::update(
        tournaments::table
            .filter(tournaments::id.eq(id))
            .filter(tournaments::accepted_at.is_null()),
    )
    .set(tournaments::accepted_at.eq(now))
    .execute(conn)
    .map(|n| n == 1)
}

/// Forgets a captain's board order for a team's players of a match.
pub fn clear_seats(conn: &mut DbConnection, id: &TournamentId, team: &TeamId) -> QueryResult<()> {
    diesel::update(
        tournament_players::table
            .filter(tournament_players::tournament_id.eq(id))
            .filter(tournament_players::team_id.eq(team)),
    )
    .set(tournament_players::seat.eq(None::<i32>))
    .execute(conn)
    .map(|_| ())
}

/// The team matches not over that the account entered for this team.
pub fn entered_for_team(
    conn: &mut DbConnection,
    account: &AccountId,
    team: &TeamId,
) -> QueryResult<Vec<TournamentId>> {
    tournament_players::table
        .inner_join(tournaments::table)
        .filter(tournament_players::account_id.eq(account))
        .filter(tournament_players::team_id.eq(team))
        .filter(tournaments::status.eq_any([TournamentStatus::Open, TournamentStatus::Started]))
        .select(tournaments::id)
        .load(conn)
}

/// A team's matches, the newest first (the latest hundred).
pub fn matches_of_team(conn: &mut DbConnection, team: &TeamId) -> QueryResult<Vec<TournamentRow>> {
    tournaments::table
        .filter(
            tournaments::home_team_id
                .eq(team)
                .or(tournaments::away_team_id.eq(team)),
        )
        .order((tournaments::created_at.desc(), tournaments::id.asc()))
        .limit(100)
        .select(TournamentRow::as_select())
        .load(conn)
}

/// Team matches under way, the earliest started first.
pub fn team_matches_under_way(
    conn: &mut DbConnection,
    limit: i64,
) -> QueryResult<Vec<TournamentId>> {
    tournaments::table
        .filter(tournaments::status.eq(TournamentStatus::Started))
        .filter(tournaments::format.eq(TournamentFormat::TeamMatch))
        .order((tournaments::started_at, tournaments::id))
        .limit(limit)
        .select(tournaments::id)
        .load(conn)
}

/// Swiss tournaments under way.
pub fn swiss_under_way(conn: &mut DbConnection) -> QueryResult<Vec<TournamentRow>> {
    tournaments::table
        .filter(tournaments::status.eq(TournamentStatus::Started))
        .filter(tournaments::format.eq(TournamentFormat::Swiss))
        .select(TournamentRow::as_select())
        .load(conn)
}
