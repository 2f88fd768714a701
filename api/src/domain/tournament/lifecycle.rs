//! A tournament's life: organised, joined and left while open, started
//! (when full, or at its deadline with three players or more), withdrawn
//! from, and finished. A round robin creates every game at its start with
//! colours by the Berger tables and finishes with its last game; a Swiss
//! pairs a round at a time (`swiss`) and takes late entries.

use kingpost_core::Rules;
use rand::seq::SliceRandom;
use serde_json::json;

use crate::{
    clock::{DAY, Millis, parse_rfc3339},
    credentials::new_id,
    db::{DbConnection, write_transaction},
    domain::{
        bots,
        challenge::{check_range, check_rating, draw_start, rules_of, timing},
        events,
        game::{self, Action, Players, Setup, clock, spec_from_parts, stored_start},
        ratings,
    },
    error::{ApiError, Code},
    models::{
        game::{self as game_rows, GameStatus},
        tournament::{self, PlayerRow, TournamentGameRow, TournamentRow},
    },
    notify::Outbox,
    stored::{AccountId, GameId, TournamentId},
    views::{
        Adjudication, ClockSpec, CreateTournamentRequest, EventKind, RatingRange, StartSpec,
        TournamentFormat, TournamentStatus,
    },
};

use super::{berger, swiss, team_match};

/// The most players a round robin takes (ICCF's groups go to 17).
pub const MOST_PLAYERS: i32 = 17;
/// The fewest it starts with.
pub const FEWEST_PLAYERS: usize = 3;
/// The most tournaments an account may organise that have not finished.
pub const MOST_ORGANISED: i64 = 10;
/// How far ahead a sign-up deadline may lie.
const LONGEST_SIGNUP: Millis = 365 * DAY;

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::invalid(Code::InvalidTournament, detail)
}

/// The start as stored: a number left out stays out when each round draws
/// its own.
fn checked_start(rules: Rules, request: &CreateTournamentRequest) -> Result<StartSpec, ApiError> {
    let drawn = draw_start(rules, &request.start)?;
    let per_round = matches!(
        request.start,
        StartSpec::Chess960 { id: None } | StartSpec::Shuffle { id: None }
    );
    match (request.start_per_round, per_round) {
        (true, true) => Ok(request.start.clone()),
        (true, false) => Err(invalid(
            "start_per_round draws a Chess960 or Shuffle number for each round: leave the id out",
        )),
        (false, _) => Ok(drawn),
    }
}

/// Organises a tournament: checked, open for sign-up. Its id.
pub fn create(
    conn: &mut DbConnection,
    now: Millis,
    organiser: &AccountId,
    request: &CreateTournamentRequest,
) -> Result<TournamentId, ApiError> {
    let name = request.name.trim();
    if name.is_empty() || name.chars().count() > 80 || name.chars().any(char::is_control) {
        return Err(invalid(
            "the name is 1 to 80 characters, none of them controls",
        ));
    }
    let rules = rules_of(&request.rules)?;
    let start = checked_start(rules, request)?;
    let (kind, number, fen) = stored_start(&start);
    let (days_per_move, clock_spec) = timing(request.days_per_move, request.clock)?;
    if request.rated {
        ratings::rated_pool(kind)?;
    }
    if let Some(range) = request.rating_range {
        check_range(range, kind, false)?;
    }
    if request.teams.is_some() && request.format != TournamentFormat::TeamMatch {
        return Err(invalid("teams are a team match's"));
    }
    let mut teams = None;
    let swiss = match request.format {
        TournamentFormat::TeamMatch => {
            teams = Some(team_match::teams_of_request(conn, organiser, request)?);
            SwissSettings::default()
        }
        TournamentFormat::RoundRobin => {
            if !(FEWEST_PLAYERS as i32..=MOST_PLAYERS).contains(&request.capacity) {
                return Err(invalid(format!(
                    "a round robin takes {FEWEST_PLAYERS} to {MOST_PLAYERS} players"
                )));
            }
            if request.rounds.is_some()
                || request.tiebreaks.is_some()
                || request.round_days.is_some()
                || request.adjudication.is_some()
            {
                return Err(invalid(
                    "rounds, tiebreaks, round_days and adjudication are a Swiss's: a round robin plays every pairing at once",
                ));
            }
            SwissSettings::default()
        }
        TournamentFormat::Swiss => swiss_settings(request)?,
    };
    let deadline = parse_rfc3339(&request.signup_deadline)
        .filter(|&at| at > now && at <= now + LONGEST_SIGNUP)
        .ok_or_else(|| invalid("signup_deadline is a time (RFC 3339) within the coming year"))?;
    let row = TournamentRow {
        id: new_id().into(),
        organiser_id: organiser.clone(),
        name: name.to_owned(),
        rules: rules.into(),
        start_kind: kind,
        start_number: number,
        start_fen: fen,
        start_per_round: request.start_per_round,
        days_per_move,
        clock: clock_spec.as_ref().map(clock::stored),
        rated: request.rated,
        double_round: request.double,
        capacity: request.capacity,
        rating_min: request.rating_range.map(|r| r.min),
        rating_max: request.rating_range.map(|r| r.max),
        signup_deadline: deadline,
        status: TournamentStatus::Open,
        created_at: now,
        started_at: None,
        finished_at: None,
        format: request.format,
        rounds: swiss.rounds,
        round: 0,
        tiebreaks: swiss.tiebreaks,
        round_days: swiss.round_days,
        adjudication: swiss.adjudication,
        round_deadline_at: None,
        vacation_allowed: request.vacation,
        start_when_full: request.start_when_full,
        home_team_id: teams.as_ref().map(|(home, _)| home.clone()),
        away_team_id: teams.map(|(_, away)| away),
        accepted_at: None,
    };
    write_transaction(conn, |conn| {
        if tournament::unfinished_of(conn, organiser)? >= MOST_ORGANISED {
            return Err(ApiError::invalid(
                Code::TooManyTournaments,
                format!(
                    "an account organises at most {MOST_ORGANISED} tournaments not yet finished"
                ),
            ));
        }
        tournament::insert(conn, &row)?;
        Ok(row.id)
    })
}

/// A Swiss's settings as stored.
#[derive(Debug, Default)]
struct SwissSettings {
    /// None: from the entries at the start.
    rounds: Option<i32>,
    tiebreaks: Option<String>,
    round_days: Option<i32>,
    adjudication: Option<Adjudication>,
}

/// A Swiss's settings, checked.
fn swiss_settings(request: &CreateTournamentRequest) -> Result<SwissSettings, ApiError> {
    let most = swiss::MOST_PLAYERS;
    if !(FEWEST_PLAYERS as i32..=most).contains(&request.capacity) {
        return Err(invalid(format!(
            "a Swiss takes {FEWEST_PLAYERS} to {most} players"
        )));
    }
    if request.double {
        return Err(invalid(
            "double is a round robin's: a Swiss pairs each round anew",
        ));
    }
    let most_rounds = swiss::MOST_ROUNDS.min(request.capacity - 1);
    if let Some(rounds) = request.rounds
        && !(1..=most_rounds).contains(&rounds)
    {
        return Err(invalid(format!(
            "a Swiss of {} players plays 1 to {most_rounds} rounds",
            request.capacity
        )));
    }
    let keys = request
        .tiebreaks
        .clone()
        .unwrap_or_else(|| swiss::DEFAULT_TIEBREAKS.to_vec());
    for (i, key) in keys.iter().enumerate() {
        if keys[..i].contains(key) {
            return Err(invalid(format!("the tie-break {key} is named twice")));
        }
    }
    if request
        .round_days
        .is_some_and(|days| !(1..=365).contains(&days))
    {
        return Err(invalid("round_days is 1 to 365"));
    }
    if request.adjudication.is_some() && request.round_days.is_none() {
        return Err(invalid(
            "adjudication says what a round deadline does: give round_days",
        ));
    }
    Ok(SwissSettings {
        rounds: request.rounds,
        tiebreaks: Some(swiss::stored_tiebreaks(&keys)),
        round_days: request.round_days,
        adjudication: request
            .round_days
            .map(|_| request.adjudication.unwrap_or(Adjudication::Wait)),
    })
}

fn locked(conn: &mut DbConnection, id: &TournamentId) -> Result<TournamentRow, ApiError> {
    tournament::find_for_update(conn, id)?
        .ok_or_else(|| ApiError::NotFound(format!("tournament {id}")))
}

fn closed() -> ApiError {
    ApiError::Refused {
        code: Code::TournamentClosed,
        detail: "the tournament is no longer open for sign-up".to_owned(),
    }
}

/// Signs `account_id` up; the tournament starts when this fills it.
pub fn join(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &TournamentId,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let row = locked(conn, id)?;
        let late = row.status == TournamentStatus::Started && row.format == TournamentFormat::Swiss;
        if row.status != TournamentStatus::Open && !late {
            return Err(closed());
        }
        let players = tournament::players_of(conn, id)?;
        if players.iter().any(|(p, _)| p.account_id == *account_id) {
            return Err(ApiError::Refused {
                code: Code::AlreadyJoined,
                detail: "you are signed up already".to_owned(),
            });
        }
        bots::check_rated(conn, row.rated, account_id, account_id)?;
        let team_id = if row.format == TournamentFormat::TeamMatch {
            Some(team_match::side_of(conn, &row, account_id, &players)?)
        } else {
            None
        };
        if team_id.is_none() && players.len() >= row.capacity as usize {
            return Err(ApiError::Refused {
                code: Code::TournamentFull,
                detail: "the tournament is full".to_owned(),
            });
        }
        let range = RatingRange::of(row.rating_min, row.rating_max);
        check_rating(
            conn,
            account_id,
            row.rules,
            row.start_kind,
            range,
            "tournament",
        )?;
        let player = PlayerRow {
            tournament_id: id.to_owned(),
            account_id: account_id.clone(),
            joined_at: now,
            seat: None,
            withdrawn_at: None,
            finished_when_withdrawn: None,
            team_id,
        };
        if late {
            swiss::enter_late(conn, &row, &player)?;
        } else {
            tournament::add_player(conn, &player)?;
        }
        if row.organiser_id != *account_id {
            let data = json!({"tournament_id": id, "players": players.len() + 1});
            events::record(
                conn,
                outbox,
                now,
                &row.organiser_id,
                EventKind::TournamentJoined,
                None,
                data,
            )?;
        }
        if !late && row.start_when_full && full(conn, &row)? {
            start(conn, outbox, now, &row)?;
        }
        Ok(())
    })
}

/// Whether every place is taken (in a team match: every board of both
/// sides, the match accepted).
fn full(conn: &mut DbConnection, row: &TournamentRow) -> Result<bool, ApiError> {
    let players = tournament::players_of(conn, &row.id)?;
    Ok(match row.format {
        TournamentFormat::TeamMatch => row.accepted_at.is_some() && team_match::full(row, &players),
        _ => players.len() >= row.capacity as usize,
    })
}

/// Takes `account_id` off an open tournament, or withdraws them from one
/// under way: their games still under way are resigned (lost by forfeit),
/// and the standings apply the withdrawal rule. All of it in one
/// transaction, so that a withdrawal is never left half done; a player
/// withdrawn with games still under way (as a server before this one could
/// leave them) has them resigned by leaving again.
pub fn leave(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &TournamentId,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    let not_joined = || ApiError::Refused {
        code: Code::NotJoined,
        detail: "you are not playing in this tournament".to_owned(),
    };
    write_transaction(conn, |conn| {
        // The player's games are locked before the tournament, in the order
        // a game's last move takes them (its game, then the tournament it
        // finishes), so that a withdrawal and a game ending at once wait
        // for each other rather than deadlock.
        let mine = games_of_player(conn, id, account_id)?;
        let mut ids: Vec<&GameId> = mine.iter().map(|g| &g.id).collect();
        ids.sort();
        for game_id in ids {
            game_rows::find_for_update(conn, game_id)?;
        }
        let row = locked(conn, id)?;
        match row.status {
            TournamentStatus::Open => {
                if !tournament::remove_player(conn, id, account_id)? {
                    return Err(not_joined());
                }
                Ok(())
            }
            TournamentStatus::Started => {
                let players = tournament::players_of(conn, id)?;
                let me = players
                    .iter()
                    .find(|(p, _)| p.account_id == *account_id)
                    .ok_or_else(not_joined)?;
                // A Swiss round whose games are still being written: the
                // player's is written now, to be resigned with the rest.
                if row.format == TournamentFormat::Swiss {
                    super::swiss::write_game_of(conn, outbox, now, &row, account_id)?;
                }
                // Read again under the locks: a game may have ended since.
                let mine = games_of_player(conn, id, account_id)?;
                let under_way: Vec<GameId> = mine
                    .iter()
                    .filter(|g| g.status == GameStatus::Started)
                    .map(|g| g.id.clone())
                    .collect();
                if me.0.withdrawn_at.is_some() && under_way.is_empty() {
                    return Err(not_joined());
                }
                if me.0.withdrawn_at.is_none() {
                    let finished = mine.len() - under_way.len();
                    tournament::withdraw(conn, id, account_id, finished as i32, now)?;
                }
                // Each resignation is a change of its game, made as the
                // player's own; one that finds its game ended on time has
                // nothing left to resign.
                for game_id in &under_way {
                    match game::act(conn, outbox, now, game_id, account_id, Action::Resign) {
                        Ok(_) | Err(ApiError::GameFinished) => {}
                        Err(other) => return Err(other),
                    }
                }
                Ok(())
            }
            TournamentStatus::Finished | TournamentStatus::Cancelled => Err(closed()),
        }
    })
}

/// The games of a tournament that `account_id` plays, as read now.
fn games_of_player(
    conn: &mut DbConnection,
    id: &TournamentId,
    account_id: &AccountId,
) -> Result<Vec<game_rows::GameRow>, ApiError> {
    let ids: Vec<GameId> = tournament::games_of(conn, id)?
        .into_iter()
        .map(|g| g.game_id)
        .collect();
    let rows = game_rows::find_all(conn, &ids.iter().collect::<Vec<_>>())?;
    Ok(rows
        .into_iter()
        .filter(|g| g.color_of(account_id).is_some())
        .collect())
}

/// Starts a locked open tournament: a round robin's seats drawn by lot,
/// every game of every round created with the Berger table's colours; a
/// Swiss's players seated (its first round paired as the change's
/// follow-up); a team match's boards set. With fewer than
/// three players (a team match not accepted, or a side without players)
/// it is cancelled instead. Only the change that closes its sign-up goes
/// on, so that two instances start it once.
pub(super) fn start(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
) -> Result<(), ApiError> {
    let mut players = tournament::players_of(conn, &row.id)?;
    let enough = match row.format {
        TournamentFormat::TeamMatch => team_match::can_start(row, &players),
        _ => players.len() >= FEWEST_PLAYERS,
    };
    if !enough {
        tournament::close_signup(conn, &row.id, TournamentStatus::Cancelled, now)?;
        return Ok(());
    }
    if !tournament::close_signup(conn, &row.id, TournamentStatus::Started, now)? {
        return Ok(());
    }
    match row.format {
        TournamentFormat::Swiss => return swiss::start(conn, outbox, row),
        TournamentFormat::TeamMatch => return team_match::start(conn, outbox, now, row),
        TournamentFormat::RoundRobin => {}
    }
    players.shuffle(&mut rand::rng());
    for (seat, (player, _)) in (1..).zip(&players) {
        tournament::set_seat(conn, &row.id, &player.account_id, seat)?;
    }
    let rounds = if row.double_round {
        berger::double(players.len())
    } else {
        berger::single(players.len())
    };
    let clock_spec = clock::parse(row.clock.as_deref(), format_args!("tournament {}", row.id))?;
    let mut created = Vec::new();
    for (round, pairings) in (1..).zip(&rounds) {
        let start = round_start(row)?;
        for (board, pairing) in (1..).zip(&pairings.games) {
            let white = &players[pairing.white - 1];
            let black = &players[pairing.black - 1];
            let table = Table {
                round,
                board,
                start: &start,
                clock: clock_spec.as_ref(),
            };
            created.push(open_game(conn, outbox, now, row, &table, white, black)?);
        }
    }
    let data = json!({"tournament_id": row.id, "games": created.len()});
    for (player, _) in &players {
        events::record(
            conn,
            outbox,
            now,
            &player.account_id,
            EventKind::TournamentStarted,
            None,
            data.clone(),
        )?;
    }
    Ok(())
}

/// A round's start: one number for each round when asked, else the one
/// drawn at creation (`draw_start` keeps a given one).
pub(super) fn round_start(row: &TournamentRow) -> Result<StartSpec, ApiError> {
    let stored_spec = spec_from_parts(
        row.start_kind,
        row.start_number,
        row.start_fen.as_deref().unwrap_or_default(),
    );
    draw_start(row.rules.0, &stored_spec)
}

/// Where a tournament game is played: its round, board, start and clock.
pub(super) struct Table<'a> {
    pub round: i32,
    pub board: i32,
    pub start: &'a StartSpec,
    pub clock: Option<&'a ClockSpec>,
}

/// Creates a game of the tournament, its players told.
pub(super) fn open_game(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
    table: &Table<'_>,
    (white, white_name): &(PlayerRow, String),
    (black, black_name): &(PlayerRow, String),
) -> Result<GameId, ApiError> {
    let seats = Players {
        white_id: white.account_id.clone(),
        white_name: white_name.clone(),
        black_id: black.account_id.clone(),
        black_name: black_name.clone(),
    };
    let setup = Setup {
        rules: row.rules.0,
        start: table.start,
        players: seats,
        days_per_move: row.days_per_move,
        clock: table.clock,
        rated: row.rated,
        vacation_allowed: row.vacation_allowed,
    };
    let game = game::open(conn, now, setup)?;
    tournament::add_game(
        conn,
        &TournamentGameRow {
            game_id: game.id.clone(),
            tournament_id: row.id.clone(),
            round: table.round,
            board: table.board,
        },
    )?;
    let told = json!({"tournament_id": row.id, "round": table.round, "board": table.board});
    let players = [&white.account_id, &black.account_id];
    game::tell_started(conn, outbox, now, &game, players, told)?;
    Ok(game.id)
}

/// Starts (or cancels) the open tournaments whose deadline has passed; how
/// many.
pub fn start_due(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
) -> Result<usize, ApiError> {
    let due = tournament::due_to_start(conn, now, 100)?;
    for id in &due {
        write_transaction(conn, |conn| {
            let row = locked(conn, id)?;
            if row.status == TournamentStatus::Open {
                start(conn, outbox, now, &row)?;
            }
            Ok::<_, ApiError>(())
        })?;
    }
    Ok(due.len())
}

/// Ends the rounds of Swiss whose deadline has passed, their games still
/// under way adjudicated drawn (the last one's end pairs the next round);
/// how many rounds. Each round in one change, its games locked before the
/// tournament, in the order a game's last move takes them.
pub fn close_due_rounds(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
) -> Result<usize, ApiError> {
    let due = tournament::rounds_due(conn, now, 100)?;
    for id in &due {
        write_transaction(conn, |conn| {
            let Some(row) = tournament::find(conn, id)? else {
                return Ok(());
            };
            let mut ids: Vec<GameId> = tournament::games_of(conn, id)?
                .into_iter()
                .filter(|g| g.round == row.round)
                .map(|g| g.game_id)
                .collect();
            ids.sort();
            for game_id in &ids {
                game_rows::find_for_update(conn, game_id)?;
            }
            let row = locked(conn, id)?;
            let still_due = row.status == TournamentStatus::Started
                && row.round_deadline_at.is_some_and(|at| at <= now);
            if !still_due {
                return Ok(());
            }
            let mut adjudicated = 0;
            for game_id in &ids {
                adjudicated += usize::from(game::adjudicate_draw(conn, outbox, now, game_id)?);
            }
            if adjudicated == 0 {
                // Nothing was under way: the round is over all the same.
                swiss::game_finished(conn, outbox, &row, row.round)?;
            }
            Ok::<_, ApiError>(())
        })?;
    }
    Ok(due.len())
}

/// After a game of a tournament finished: a round robin finishes with its
/// last game; a Swiss pairs its next round when this was the last of the
/// round (or finishes after its last round). The tournament is locked
/// first, so that of two games ending at once the second to take the lock
/// sees the first ended.
pub fn game_finished(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
) -> Result<(), ApiError> {
    let Some(entry) = tournament::of_game(conn, game_id)? else {
        return Ok(());
    };
    let row = locked(conn, &entry.tournament_id)?;
    if row.status != TournamentStatus::Started {
        return Ok(());
    }
    if row.format == TournamentFormat::Swiss {
        return swiss::game_finished(conn, outbox, &row, entry.round);
    }
    let ids: Vec<GameId> = tournament::games_of(conn, &entry.tournament_id)?
        .into_iter()
        .map(|g| g.game_id)
        .collect();
    let games = game_rows::find_all(conn, &ids.iter().collect::<Vec<_>>())?;
    // The game finishing now is stored already, in this transaction.
    if games.iter().any(|g| g.status == GameStatus::Started) {
        return Ok(());
    }
    finish(conn, outbox, now, &entry.tournament_id)
}

/// Finishes a tournament under way, telling every player the winners.
pub(super) fn finish(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &TournamentId,
) -> Result<(), ApiError> {
    if !tournament::finish(conn, id, now)? {
        return Ok(());
    }
    let view = super::view::view(conn, id)?;
    let winners: Vec<&str> = view.winners.iter().map(|w| w.username.as_str()).collect();
    let (kind, data) = match &view.team_match {
        Some(score) => (
            EventKind::TeamMatchFinished,
            json!({
                "tournament_id": id,
                "home": score.home.team.name,
                "away": score.away.team.name,
                "home_points": score.home.points,
                "away_points": score.away.points,
                "winner": score.winner.as_ref().map(|t| &t.name),
            }),
        ),
        None => (
            EventKind::TournamentFinished,
            json!({"tournament_id": id, "winners": winners}),
        ),
    };
    for (player, _) in tournament::players_of(conn, id)? {
        events::record(
            conn,
            outbox,
            now,
            &player.account_id,
            kind,
            None,
            data.clone(),
        )?;
    }
    Ok(())
}

/// Whether `game_id` is a tournament game (which cannot be aborted: its
/// pairing is the table's).
pub fn is_tournament_game(conn: &mut DbConnection, game_id: &GameId) -> Result<bool, ApiError> {
    Ok(tournament::of_game(conn, game_id)?.is_some())
}
