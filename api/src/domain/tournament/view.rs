//! Tournaments as players and watchers read them: the list, and one with
//! its players, standings and games.

use std::collections::{BTreeMap, HashMap};

use crate::{
    db::DbConnection,
    domain::{
        cursor,
        game::{clock, spec_from_parts, variant_name},
        pgn,
    },
    error::{ApiError, Code},
    models::{
        account,
        game::{self, GameResult, GameStatus},
        tournament::{self, PlayerRow, TournamentRow},
    },
    stored::{AccountId, TeamId, TournamentId},
    views::{
        ByeView, ClockSpec, PlayerView, RatingRange, StandingView, TeamRef, TieBreakKey,
        TieBreakValue, Timestamp, TournamentFormat, TournamentGameView, TournamentList,
        TournamentQuery, TournamentStatus, TournamentSummary, TournamentView,
    },
};
use kingpost_pairing::{
    swiss::tiebreaks::{self, TieBreak},
    trf::{RoundEntry, RoundResult},
};

use super::{
    standings::{self, Game, Outcome},
    swiss, team_match,
};

fn summary(
    row: &TournamentRow,
    organiser: PlayerView,
    player_count: i64,
    rounds: Option<i32>,
    teams: &HashMap<TeamId, TeamRef>,
) -> Result<TournamentSummary, ApiError> {
    let team = |id: &Option<TeamId>| id.as_ref().and_then(|id| teams.get(id)).cloned();
    let start = spec_from_parts(
        row.start_kind,
        row.start_number,
        row.start_fen.as_deref().unwrap_or_default(),
    );
    let clock: Option<ClockSpec> =
        clock::parse(row.clock.as_deref(), format_args!("tournament {}", row.id))?;
    Ok(TournamentSummary {
        id: row.id.to_string(),
        name: row.name.clone(),
        organiser,
        rules: row.rules,
        variant: variant_name(row.rules.0, &start).to_owned(),
        start,
        start_per_round: row.start_per_round,
        days_per_move: row.days_per_move,
        clock,
        rated: row.rated,
        format: row.format,
        home_team: team(&row.home_team_id),
        away_team: team(&row.away_team_id),
        double: row.double_round,
        rounds,
        round: row.round,
        tiebreaks: swiss::tiebreaks_of(row),
        round_days: row.round_days,
        adjudication: row.adjudication,
        round_deadline: row.round_deadline_at.map(Timestamp),
        vacation: row.vacation_allowed,
        start_when_full: row.start_when_full,
        capacity: row.capacity,
        rating_range: RatingRange::of(row.rating_min, row.rating_max),
        player_count,
        status: row.status,
        signup_deadline: Timestamp(row.signup_deadline),
        started_at: row.started_at.map(Timestamp),
        finished_at: row.finished_at.map(Timestamp),
    })
}

fn organiser(conn: &mut DbConnection, row: &TournamentRow) -> Result<PlayerView, ApiError> {
    account::find(conn, &row.organiser_id)?
        .map(|a| PlayerView {
            username: a.username,
            bot: a.bot,
        })
        .ok_or_else(|| ApiError::Internal(format!("tournament {}: no organiser", row.id)))
}

/// One tournament: players, standings by the tie-breaks, games, winners.
pub fn view(conn: &mut DbConnection, id: &TournamentId) -> Result<TournamentView, ApiError> {
    let row = tournament::find(conn, id)?
        .ok_or_else(|| ApiError::NotFound(format!("tournament {id}")))?;
    let players = tournament::players_of(conn, id)?;
    let accounts: Vec<&AccountId> = players.iter().map(|(p, _)| &p.account_id).collect();
    let bots = account::bots_among(conn, &accounts)?;
    let entries = tournament::games_of(conn, id)?;
    let ids: Vec<_> = entries.iter().map(|e| &e.game_id).collect();
    let rows: HashMap<_, _> = game::find_all(conn, &ids)?
        .into_iter()
        .map(|g| (g.id.clone(), g))
        .collect();
    let index: HashMap<_, _> = players
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.account_id.clone(), i))
        .collect();
    let name = |i: usize| PlayerView {
        username: players[i].1.clone(),
        bot: bots.contains(&players[i].0.account_id),
    };
    let mut games = Vec::with_capacity(entries.len());
    let mut views = Vec::with_capacity(entries.len());
    for entry in &entries {
        let row = rows.get(&entry.game_id).ok_or_else(|| {
            ApiError::Internal(format!("tournament {id}: no game {}", entry.game_id))
        })?;
        let seat = |account: &Option<AccountId>| {
            account
                .as_ref()
                .and_then(|a| index.get(a).copied())
                .ok_or_else(|| ApiError::Internal(format!("game {}: not a player of {id}", row.id)))
        };
        let (white, black) = (seat(&row.white_id)?, seat(&row.black_id)?);
        let result = row.result.filter(|_| row.status == GameStatus::Finished);
        let outcome = match result {
            Some(GameResult::WhiteWon) => Some(Outcome::WhiteWon),
            Some(GameResult::BlackWon) => Some(Outcome::BlackWon),
            Some(GameResult::Draw) => Some(Outcome::Draw),
            Some(GameResult::Unknown) | None => None,
        };
        games.push(Game {
            white,
            black,
            outcome,
        });
        views.push(TournamentGameView {
            game_id: entry.game_id.to_string(),
            round: entry.round,
            board: entry.board,
            white: name(white),
            black: name(black),
            result,
        });
    }
    let started = matches!(
        row.status,
        TournamentStatus::Started | TournamentStatus::Finished
    );
    // Each withdrawn player with the games they had finished then.
    let withdrawn: BTreeMap<usize, u32> = players
        .iter()
        .enumerate()
        .filter(|(_, (p, _))| p.withdrawn_at.is_some())
        .map(|(i, (p, _))| {
            (
                i,
                p.finished_when_withdrawn.unwrap_or_default().max(0) as u32,
            )
        })
        .collect();
    if row.format == TournamentFormat::Swiss {
        return swiss_view(conn, &row, &players, &bots, views);
    }
    if row.format == TournamentFormat::TeamMatch {
        let ordered: Vec<_> = entries
            .iter()
            .filter_map(|e| rows.get(&e.game_id))
            .cloned()
            .collect();
        let score = team_match::view(conn, &row, &players, &bots, &ordered)?;
        let winners = match &score.winner {
            Some(team) => {
                let side = if team.id == score.home.team.id {
                    &score.home
                } else {
                    &score.away
                };
                side.players.clone()
            }
            None => Vec::new(),
        };
        // The teams as the score read them.
        let teams: HashMap<TeamId, TeamRef> = [&row.home_team_id, &row.away_team_id]
            .into_iter()
            .flatten()
            .cloned()
            .zip([score.home.team.clone(), score.away.team.clone()])
            .collect();
        let organiser = organiser(conn, &row)?;
        let rounds = Some(team_match::GAMES_A_BOARD);
        return Ok(TournamentView {
            summary: summary(&row, organiser, players.len() as i64, rounds, &teams)?,
            players: (0..players.len()).map(name).collect(),
            standings: Vec::new(),
            games: views,
            byes: Vec::new(),
            winners,
            team_match: Some(score),
        });
    }
    let table = if started {
        standings::standings(players.len(), &games, &withdrawn)
    } else {
        Vec::new()
    };
    let half = |h: u32| f64::from(h) / 2.0;
    let standings: Vec<StandingView> = table
        .iter()
        .map(|s| StandingView {
            place: s.place,
            player: name(s.player),
            seat: players[s.player].0.seat.unwrap_or_default(),
            points: half(s.half_points),
            tiebreaks: Vec::new(),
            wins: s.wins,
            sonneborn_berger: f64::from(s.sonneborn_berger_quarters) / 4.0,
            direct_encounter: half(s.direct_half_points),
            finished: s.finished,
            unfinished: s.unfinished,
            withdrawn: s.withdrawn,
            annulled: s.annulled,
        })
        .collect();
    let winners = if row.status == TournamentStatus::Finished {
        table
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| name(s.player))
            .collect()
    } else {
        Vec::new()
    };
    let organiser = organiser(conn, &row)?;
    let rounds = views.iter().map(|g| g.round).max();
    Ok(TournamentView {
        summary: summary(
            &row,
            organiser,
            players.len() as i64,
            rounds,
            &HashMap::new(),
        )?,
        players: players
            .iter()
            .map(|(player, username)| PlayerView {
                username: username.clone(),
                bot: bots.contains(&player.account_id),
            })
            .collect(),
        standings,
        games: views,
        byes: Vec::new(),
        winners,
        team_match: None,
    })
}

/// A Swiss's view: standings by its tie-breaks from its report, its byes.
fn swiss_view(
    conn: &mut DbConnection,
    row: &TournamentRow,
    all: &[(PlayerRow, String)],
    bots: &[AccountId],
    games: Vec<TournamentGameView>,
) -> Result<TournamentView, ApiError> {
    let view_of = |(player, username): &(PlayerRow, String)| PlayerView {
        username: username.clone(),
        bot: bots.contains(&player.account_id),
    };
    let field = swiss::field(conn, row)?;
    let order = swiss::tiebreaks_of(row);
    let lines = swiss::standings(row, &field.report);
    let sonneborn_berger: HashMap<u32, i64> =
        tiebreaks::standings(&field.report, &[TieBreak::SonnebornBerger])
            .into_iter()
            .map(|s| (s.number, s.values[0]))
            .collect();
    let tenths = |v: i64| v as f64 / 10.0;
    let standings = lines
        .iter()
        .map(|s| {
            let at = s.number as usize - 1;
            let (player, _) = &field.players[at];
            let rounds = &field.report.players[at].rounds;
            let count = |f: fn(&RoundEntry) -> bool| rounds.iter().filter(|r| f(r)).count() as u32;
            let value = |key: TieBreakKey, v: i64| match key {
                TieBreakKey::SonnebornBerger => v as f64 / 100.0,
                // The players it ranks below this one: a count.
                TieBreakKey::DirectEncounter => v as f64,
                _ => tenths(v),
            };
            StandingView {
                place: s.place,
                player: view_of(&field.players[at]),
                seat: player.seat.unwrap_or_default(),
                points: tenths(i64::from(s.points_tenths)),
                tiebreaks: order
                    .iter()
                    .zip(&s.values)
                    .map(|(&tiebreak, &v)| TieBreakValue {
                        tiebreak,
                        value: value(tiebreak, v),
                    })
                    .collect(),
                wins: count(|r| r.result == RoundResult::Win),
                sonneborn_berger: sonneborn_berger[&s.number] as f64 / 100.0,
                direct_encounter: order
                    .iter()
                    .position(|&k| k == TieBreakKey::DirectEncounter)
                    .map_or(0.0, |i| s.values[i] as f64),
                finished: count(|r| r.opponent.is_some() && r.result != RoundResult::NotPlayed),
                unfinished: count(|r| r.opponent.is_some() && r.result == RoundResult::NotPlayed),
                withdrawn: player.withdrawn_at.is_some(),
                annulled: false,
            }
        })
        .collect();
    let byes = tournament::byes_of(conn, &row.id)?
        .into_iter()
        .filter_map(|bye| {
            let entry = all.iter().find(|(p, _)| p.account_id == bye.account_id)?;
            Some(ByeView {
                round: bye.round,
                player: view_of(entry),
                kind: bye.kind,
            })
        })
        .collect();
    let winners = if row.status == TournamentStatus::Finished {
        lines
            .iter()
            .filter(|s| s.place == 1)
            .map(|s| view_of(&field.players[s.number as usize - 1]))
            .collect()
    } else {
        Vec::new()
    };
    let organiser = organiser(conn, row)?;
    Ok(TournamentView {
        summary: summary(
            row,
            organiser,
            all.len() as i64,
            row.rounds,
            &HashMap::new(),
        )?,
        players: all.iter().map(view_of).collect(),
        standings,
        games,
        byes,
        winners,
        team_match: None,
    })
}

/// A page of tournaments, newest first, by status and rule set.
pub fn list(
    conn: &mut DbConnection,
    query: &TournamentQuery,
    limit: i64,
) -> Result<TournamentList, ApiError> {
    let after = query.cursor.as_deref().map(cursor::decode).transpose()?;
    let mut rows = tournament::list(conn, query.status, query.rules, after, limit + 1)?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let ids: Vec<&TournamentId> = rows.iter().map(|r| &r.id).collect();
    let counts: HashMap<TournamentId, i64> = tournament::counts(conn, &ids)?.into_iter().collect();
    let next_cursor = rows
        .last()
        .filter(|_| more)
        .map(|last| cursor::encode(last.created_at, &last.id));
    Ok(TournamentList {
        tournaments: summaries(conn, &rows, &counts)?,
        next_cursor,
    })
}

fn summaries(
    conn: &mut DbConnection,
    rows: &[TournamentRow],
    counts: &HashMap<TournamentId, i64>,
) -> Result<Vec<TournamentSummary>, ApiError> {
    let teams = team_match::team_refs(conn, &rows.iter().collect::<Vec<_>>())?;
    let mut tournaments = Vec::with_capacity(rows.len());
    for row in rows {
        let organiser = organiser(conn, row)?;
        let count = counts.get(&row.id).copied().unwrap_or_default();
        let rounds = if row.format == TournamentFormat::TeamMatch {
            Some(team_match::GAMES_A_BOARD)
        } else {
            row.rounds
        };
        tournaments.push(summary(row, organiser, count, rounds, &teams)?);
    }
    Ok(tournaments)
}

/// A team's matches, the newest first.
pub fn matches_of_team(
    conn: &mut DbConnection,
    team: &TeamId,
) -> Result<Vec<TournamentSummary>, ApiError> {
    let rows = tournament::matches_of_team(conn, team)?;
    let ids: Vec<&TournamentId> = rows.iter().map(|r| &r.id).collect();
    let counts: HashMap<TournamentId, i64> = tournament::counts(conn, &ids)?.into_iter().collect();
    summaries(conn, &rows, &counts)
}

/// Every game of the tournament as PGN, by round and board, each with the
/// tournament's name as `Event` and its `Round` and `Board`.
pub fn pgn(conn: &mut DbConnection, id: &TournamentId) -> Result<String, ApiError> {
    if tournament::find(conn, id)?.is_none() {
        return Err(ApiError::NotFound(format!("tournament {id}")));
    }
    let entries = tournament::games_of(conn, id)?;
    let ids: Vec<_> = entries.iter().map(|e| &e.game_id).collect();
    let mut rows: HashMap<_, _> = game::find_all(conn, &ids)?
        .into_iter()
        .map(|g| (g.id.clone(), g))
        .collect();
    let ordered: Vec<_> = entries
        .iter()
        .filter_map(|e| rows.remove(&e.game_id))
        .collect();
    pgn::pgn_of_rows(conn, &ordered)
}

/// A started Swiss as a TRF-2016 report.
pub fn trf(conn: &mut DbConnection, id: &TournamentId) -> Result<String, ApiError> {
    let row = tournament::find(conn, id)?
        .ok_or_else(|| ApiError::NotFound(format!("tournament {id}")))?;
    if row.format != TournamentFormat::Swiss || row.round == 0 {
        return Err(ApiError::Refused {
            code: Code::NotASwiss,
            detail: "a report is a Swiss's, once its first round is paired".to_owned(),
        });
    }
    let mut report = swiss::field(conn, &row)?.report;
    let lines = swiss::standings(&row, &report);
    for line in &lines {
        report.players[line.number as usize - 1].rank = Some(line.place as u32);
    }
    Ok(report.write())
}
