//! Team matches: two teams, board against board. A captain of the home
//! team organises the match, a captain of the away team accepts it, and
//! each team's members sign up for their team. At the start each side is
//! put in board order (the captain's order, then by rating in the match's
//! pool), the boards are as many as the shorter side fills, and each
//! board's players play two games at once, one with each colour. The score
//! is the sum of the games' points, live. A withdrawal resigns the
//! player's games; a game lost on time forfeits the board's other game
//! (the sweep ends it, locking it as a move would).

use std::collections::HashMap;

use serde_json::json;

use super::lifecycle::{Table, open_game, round_start};
use crate::{
    clock::Millis,
    db::{DbConnection, write_transaction},
    domain::{events, game, game::clock, ratings, teams},
    error::{ApiError, Code},
    models::{
        game::{self as game_rows, GameResult, GameStatus},
        team,
        tournament::{self, PlayerRow, TournamentGameRow, TournamentRow},
    },
    notify::Outbox,
    stored::{AccountId, GameId, TeamId, TournamentId},
    views::{
        BoardView, CreateTournamentRequest, EventKind, PlayerView, TeamMatchView, TeamRef,
        TeamSideView, Termination, Timestamp, TournamentStatus,
    },
};

/// The most boards a match is played on.
pub const MOST_BOARDS: i32 = 100;
/// The games a board plays (its rounds: one with each colour).
pub const GAMES_A_BOARD: i32 = 2;
/// The team matches the sweep looks at in one turn.
const SWEPT_AT_ONCE: i64 = 200;

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::invalid(Code::InvalidTournament, detail)
}

/// A match's teams, checked as it is organised: two teams, the organiser a
/// captain of the home one.
pub fn teams_of_request(
    conn: &mut DbConnection,
    organiser: &AccountId,
    request: &CreateTournamentRequest,
) -> Result<(TeamId, TeamId), ApiError> {
    let Some(named) = &request.teams else {
        return Err(invalid("a team match names its teams: home and away"));
    };
    if !(1..=MOST_BOARDS).contains(&request.capacity) {
        return Err(invalid(format!(
            "a team match is played on 1 to {MOST_BOARDS} boards (capacity)"
        )));
    }
    if request.double
        || request.rounds.is_some()
        || request.tiebreaks.is_some()
        || request.round_days.is_some()
        || request.adjudication.is_some()
        || request.start_per_round
    {
        return Err(invalid(
            "double, rounds, tiebreaks, round_days, adjudication and start_per_round are for round robins and Swiss",
        ));
    }
    let (home, away) = (
        TeamId::from(named.home.as_str()),
        TeamId::from(named.away.as_str()),
    );
    if home == away {
        return Err(invalid("a team match is between two teams"));
    }
    for id in [&home, &away] {
        if team::find(conn, id)?.is_none() {
            return Err(ApiError::NotFound(format!("team {id}")));
        }
    }
    teams::check_captain(conn, &home, organiser)?;
    Ok((home, away))
}

fn sides(row: &TournamentRow) -> Result<(&TeamId, &TeamId), ApiError> {
    match (&row.home_team_id, &row.away_team_id) {
        (Some(home), Some(away)) => Ok((home, away)),
        _ => Err(ApiError::Internal(format!(
            "team match {}: no teams",
            row.id
        ))),
    }
}

/// The team a player signing up plays for: a member of one of the two,
/// with a board left on that side.
pub fn side_of(
    conn: &mut DbConnection,
    row: &TournamentRow,
    account: &AccountId,
    players: &[(PlayerRow, String)],
) -> Result<TeamId, ApiError> {
    let (home, away) = sides(row)?;
    let on_home = team::member(conn, home, account)?.is_some();
    let on_away = team::member(conn, away, account)?.is_some();
    let team = match (on_home, on_away) {
        (true, false) => home,
        (false, true) => away,
        (true, true) => {
            return Err(ApiError::Refused {
                code: Code::NotATeamMember,
                detail: "you are a member of both teams: leave one to play for the other"
                    .to_owned(),
            });
        }
        (false, false) => {
            return Err(ApiError::Refused {
                code: Code::NotATeamMember,
                detail: "a team match takes the members of its two teams".to_owned(),
            });
        }
    };
    let taken = players
        .iter()
        .filter(|(p, _)| p.team_id.as_ref() == Some(team))
        .count();
    if taken >= row.capacity as usize {
        return Err(ApiError::Refused {
            code: Code::TournamentFull,
            detail: "your team's boards are all taken".to_owned(),
        });
    }
    Ok(team.clone())
}

/// Whether both sides have a player on every board.
pub fn full(row: &TournamentRow, players: &[(PlayerRow, String)]) -> bool {
    let Ok((home, away)) = sides(row) else {
        return false;
    };
    [home, away].iter().all(|&team| {
        players
            .iter()
            .filter(|(p, _)| p.team_id.as_ref() == Some(team))
            .count()
            >= row.capacity as usize
    })
}

/// Whether the match can start: accepted, with a player a side.
pub fn can_start(row: &TournamentRow, players: &[(PlayerRow, String)]) -> bool {
    let Ok((home, away)) = sides(row) else {
        return false;
    };
    row.accepted_at.is_some()
        && [home, away].iter().all(|&team| {
            players
                .iter()
                .any(|(p, _)| p.team_id.as_ref() == Some(team))
        })
}

/// A captain of the away team accepts the match; it starts now if both
/// sides are full and it starts once full.
pub fn accept(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &TournamentId,
    captain: &AccountId,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let row = tournament::find_for_update(conn, id)?
            .ok_or_else(|| ApiError::NotFound(format!("tournament {id}")))?;
        let (_, away) = sides(&row).map_err(|_| not_a_match())?;
        teams::check_captain(conn, away, captain)?;
        if row.status != TournamentStatus::Open {
            return Err(ApiError::Refused {
                code: Code::TournamentClosed,
                detail: "the match is no longer open".to_owned(),
            });
        }
        if !tournament::accept(conn, id, now)? {
            return Ok(());
        }
        let players = tournament::players_of(conn, id)?;
        if row.start_when_full && full(&row, &players) {
            let accepted = TournamentRow {
                accepted_at: Some(now),
                ..row
            };
            super::lifecycle::start(conn, outbox, now, &accepted)?;
        }
        Ok(())
    })
}

fn not_a_match() -> ApiError {
    ApiError::Refused {
        code: Code::NotATeamMember,
        detail: "this tournament is not a team match".to_owned(),
    }
}

/// A captain orders their team's players before the start: these first,
/// in this order, the others after them by rating.
pub fn set_order(
    conn: &mut DbConnection,
    id: &TournamentId,
    captain: &AccountId,
    usernames: &[String],
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let row = tournament::find_for_update(conn, id)?
            .ok_or_else(|| ApiError::NotFound(format!("tournament {id}")))?;
        let (home, away) = sides(&row).map_err(|_| not_a_match())?;
        if row.status != TournamentStatus::Open {
            return Err(ApiError::Refused {
                code: Code::TournamentClosed,
                detail: "the boards are set once the match starts".to_owned(),
            });
        }
        let players = tournament::players_of(conn, id)?;
        let mut named = Vec::with_capacity(usernames.len());
        for username in usernames {
            let player = players
                .iter()
                .find(|(_, name)| name.eq_ignore_ascii_case(username))
                .ok_or_else(|| invalid(format!("{username} has not signed up for this match")))?;
            if named
                .iter()
                .any(|(p, _): &&(PlayerRow, String)| p.account_id == player.0.account_id)
            {
                return Err(invalid(format!("{username} is named twice")));
            }
            named.push(player);
        }
        let Some(team) = named.first().and_then(|(p, _)| p.team_id.clone()) else {
            return Err(invalid("name the players of your team, in board order"));
        };
        if named.iter().any(|(p, _)| p.team_id.as_ref() != Some(&team)) {
            return Err(invalid("an order names players of one team"));
        }
        if team != *home && team != *away {
            return Err(not_a_match());
        }
        teams::check_captain(conn, &team, captain)?;
        tournament::clear_seats(conn, id, &team)?;
        for (seat, (player, _)) in (1..).zip(&named) {
            tournament::set_seat(conn, id, &player.account_id, seat)?;
        }
        Ok(())
    })
}

/// A side's players in board order: the captain's order, then by rating
/// in the match's pool (the highest first), then in the order they joined.
fn board_order<'a>(
    conn: &mut DbConnection,
    row: &TournamentRow,
    players: &'a [(PlayerRow, String)],
    team: &TeamId,
) -> Result<Vec<&'a (PlayerRow, String)>, ApiError> {
    // A player the captain placed (every player, once the boards are set)
    // needs no rating.
    let unplaced: Vec<&AccountId> = players
        .iter()
        .filter(|(p, _)| p.team_id.as_ref() == Some(team) && p.seat.is_none())
        .map(|(p, _)| &p.account_id)
        .collect();
    let held = match ratings::rated_start(row.start_kind) {
        Some(start) if !unplaced.is_empty() => {
            Some(ratings::ratings_in(conn, &unplaced, row.rules, start)?)
        }
        _ => None,
    };
    let mut side = Vec::new();
    for (joined, entry) in players.iter().enumerate() {
        if entry.0.team_id.as_ref() != Some(team) {
            continue;
        }
        let rating = match &held {
            Some(held) if entry.0.seat.is_none() => held.of(&entry.0.account_id),
            _ => 0.0,
        };
        side.push((entry.0.seat.unwrap_or(i32::MAX), rating, joined, entry));
    }
    side.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    Ok(side.into_iter().map(|(_, _, _, entry)| entry).collect())
}

/// Starts a match whose sign-up has closed: the boards set, the players
/// beyond the shorter side's taken off (they play no game), and each
/// board's two games created.
pub fn start(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
) -> Result<(), ApiError> {
    let (home, away) = sides(row)?;
    let players = tournament::players_of(conn, &row.id)?;
    let home_side = board_order(conn, row, &players, home)?;
    let away_side = board_order(conn, row, &players, away)?;
    let boards = home_side.len().min(away_side.len());
    for (player, _) in home_side[boards..].iter().chain(&away_side[boards..]) {
        tournament::remove_player(conn, &row.id, &player.account_id)?;
    }
    let start = round_start(row)?;
    let clock_spec = clock::parse(row.clock.as_deref(), format_args!("tournament {}", row.id))?;
    for (board, (&home_player, &away_player)) in (1..).zip(home_side.iter().zip(&away_side)) {
        tournament::set_seat(conn, &row.id, &home_player.0.account_id, board)?;
        tournament::set_seat(conn, &row.id, &away_player.0.account_id, board)?;
        // Round 1 of a board has the home player White, round 2 the away.
        for (round, white, black) in [(1, home_player, away_player), (2, away_player, home_player)]
        {
            let table = Table {
                round,
                board,
                start: &start,
                clock: clock_spec.as_ref(),
            };
            open_game(conn, outbox, now, row, &table, white, black)?;
        }
        for player in [home_player, away_player] {
            let data = json!({"tournament_id": row.id, "board": board, "games": GAMES_A_BOARD});
            events::record(
                conn,
                outbox,
                now,
                &player.0.account_id,
                EventKind::TeamMatchStarted,
                None,
                data,
            )?;
        }
    }
    Ok(())
}

/// Ends the games that a loss on time in their board's other game
/// forfeits; how many. Each in its own change, its game locked before its
/// match, in the order a move takes them.
pub fn forfeit_due(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
) -> Result<usize, ApiError> {
    let mut forfeits = Vec::new();
    for id in tournament::team_matches_under_way(conn, SWEPT_AT_ONCE)? {
        let entries = tournament::games_of(conn, &id)?;
        let ids: Vec<_> = entries.iter().map(|e| &e.game_id).collect();
        let rows: HashMap<_, _> = game_rows::find_all(conn, &ids)?
            .into_iter()
            .map(|g| (g.id.clone(), g))
            .collect();
        // The games come by round then board: a board's two games are
        // rounds 1 and 2 of it.
        let mut by_board: HashMap<i32, Vec<TournamentGameRow>> = HashMap::new();
        for entry in entries {
            by_board.entry(entry.board).or_default().push(entry);
        }
        for board in by_board.values() {
            forfeits.extend(board_forfeits(board, &rows));
        }
    }
    let mut ended = 0;
    for (game_id, loser) in &forfeits {
        ended += usize::from(write_transaction(conn, |conn| {
            game::forfeit(conn, outbox, now, game_id, loser)
        })?);
    }
    Ok(ended)
}

/// Of a board's games, the one under way that the other's loss on time
/// forfeits, with the player who lost on time.
fn board_forfeits(
    board: &[TournamentGameRow],
    rows: &HashMap<GameId, game_rows::GameRow>,
) -> Vec<(GameId, AccountId)> {
    let games: Vec<_> = board.iter().filter_map(|e| rows.get(&e.game_id)).collect();
    let mut due = Vec::new();
    for timed_out in games
        .iter()
        .filter(|g| g.termination == Some(Termination::Timeout))
    {
        let loser = match timed_out.result {
            Some(GameResult::WhiteWon) => &timed_out.black_id,
            Some(GameResult::BlackWon) => &timed_out.white_id,
            // A draw on time (the opponent could not mate) forfeits nothing.
            _ => continue,
        };
        let Some(loser) = loser else { continue };
        for other in games.iter().filter(|g| g.status == GameStatus::Started) {
            due.push((other.id.clone(), loser.clone()));
        }
    }
    due
}

/// A match's teams, boards and score from its players and games.
pub fn view(
    conn: &mut DbConnection,
    row: &TournamentRow,
    players: &[(PlayerRow, String)],
    bots: &[AccountId],
    games: &[game_rows::GameRow],
) -> Result<TeamMatchView, ApiError> {
    let (home, away) = sides(row)?;
    let teams = team_refs(conn, &[row])?;
    let team_ref = |id: &TeamId| {
        teams.get(id).cloned().unwrap_or_else(|| TeamRef {
            id: id.to_string(),
            name: String::new(),
        })
    };
    let player_view = |(p, name): &(PlayerRow, String)| PlayerView {
        username: name.clone(),
        bot: bots.contains(&p.account_id),
    };
    let team_of: HashMap<&AccountId, &TeamId> = players
        .iter()
        .filter_map(|(p, _)| Some((&p.account_id, p.team_id.as_ref()?)))
        .collect();
    // Points in halves: each side's, and each board's.
    let (mut home_halves, mut away_halves, mut under_way) = (0u32, 0u32, 0u32);
    let mut by_player: HashMap<&AccountId, u32> = HashMap::new();
    for game in games {
        if game.status == GameStatus::Started {
            under_way += 1;
            continue;
        }
        let (white_halves, black_halves) = match game.result {
            Some(GameResult::WhiteWon) => (2, 0),
            Some(GameResult::BlackWon) => (0, 2),
            Some(GameResult::Draw) => (1, 1),
            Some(GameResult::Unknown) | None => (0, 0),
        };
        for (player, earned) in [
            (&game.white_id, white_halves),
            (&game.black_id, black_halves),
        ] {
            let Some(player) = player else { continue };
            *by_player.entry(player).or_default() += earned;
            match team_of.get(player) {
                Some(&team) if team == home => home_halves += earned,
                Some(_) => away_halves += earned,
                None => {}
            }
        }
    }
    let started = row.status != TournamentStatus::Open && row.status != TournamentStatus::Cancelled;
    let home_side = board_order(conn, row, players, home)?;
    let away_side = board_order(conn, row, players, away)?;
    let half = |h: u32| f64::from(h) / 2.0;
    let boards = if started {
        (1..)
            .zip(home_side.iter().zip(&away_side))
            .map(|(board, (&h, &a))| BoardView {
                board,
                home: player_view(h),
                away: player_view(a),
                home_points: half(by_player.get(&h.0.account_id).copied().unwrap_or_default()),
                away_points: half(by_player.get(&a.0.account_id).copied().unwrap_or_default()),
            })
            .collect()
    } else {
        Vec::new()
    };
    let winner =
        (row.status == TournamentStatus::Finished && home_halves != away_halves).then(|| {
            team_ref(if home_halves > away_halves {
                home
            } else {
                away
            })
        });
    Ok(TeamMatchView {
        home: TeamSideView {
            team: team_ref(home),
            points: half(home_halves),
            players: home_side.into_iter().map(player_view).collect(),
        },
        away: TeamSideView {
            team: team_ref(away),
            points: half(away_halves),
            players: away_side.into_iter().map(player_view).collect(),
        },
        accepted_at: row.accepted_at.map(Timestamp),
        boards,
        under_way,
        winner,
    })
}

/// The teams of these matches, for their summaries.
pub fn team_refs(
    conn: &mut DbConnection,
    rows: &[&TournamentRow],
) -> Result<HashMap<TeamId, TeamRef>, ApiError> {
    let ids: Vec<&TeamId> = rows
        .iter()
        .flat_map(|r| [r.home_team_id.as_ref(), r.away_team_id.as_ref()])
        .flatten()
        .collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(team::find_all(conn, &ids)?
        .into_iter()
        .map(|t| {
            let team = TeamRef {
                id: t.id.to_string(),
                name: t.name,
            };
            (t.id, team)
        })
        .collect())
}
