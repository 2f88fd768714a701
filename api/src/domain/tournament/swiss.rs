//! A Swiss after its start. The rounds so far are read as FIDE's TRF-2016
//! report (what the Dutch system pairs from, and what is exported for
//! other pairing programs to check); each round is paired when the one
//! before it ends, in the transaction of its last game, the tournament
//! locked and its round advanced only from the round that ended, so that
//! two instances closing it at once pair it once. Withdrawn players are
//! absent from the rounds after; late entries join before a round and
//! are absent from those before it. A round the rules cannot pair (C.1-C.3
//! leave no pairing) ends the tournament, as an arbiter would.

use std::collections::HashMap;

use kingpost_pairing::{
    swiss::{
        dutch::pair_next_round,
        tiebreaks::{self, Standing, TieBreak},
    },
    trf::{self, Colour, Report, RoundEntry, RoundResult},
};
use serde_json::json;

use super::lifecycle::{Table, open_game, round_start};
use crate::{
    clock::{DAY, Millis},
    db::DbConnection,
    domain::{events, game::clock, ratings},
    error::{ApiError, Code},
    models::{
        game::{self as game_rows, GameResult, GameStatus},
        tournament::{self, ByeRow, PlayerRow, TournamentRow},
    },
    notify::Outbox,
    stored::AccountId,
    views::{ByeKind, EventKind, TieBreakKey},
};

/// The most players a Swiss takes: a round is paired inside the change
/// that ends its last game, holding the writers' turn, and pairing 300
/// players takes up to a tenth of a second (BENCHMARKS.md), 1,000 several.
pub const MOST_PLAYERS: i32 = 300;
/// The most rounds.
pub const MOST_ROUNDS: i32 = 30;
/// The tie-breaks when the organiser names none: FIDE's recommendation
/// for an individual Swiss (C.07).
pub const DEFAULT_TIEBREAKS: [TieBreakKey; 5] = [
    TieBreakKey::BuchholzCut1,
    TieBreakKey::Buchholz,
    TieBreakKey::SonnebornBerger,
    TieBreakKey::DirectEncounter,
    TieBreakKey::Progressive,
];

/// Rounds enough for a single winner among `entries`: the base-2
/// logarithm rounded up, plus one, and never more than the entries less
/// one (nobody can meet more).
pub fn recommended_rounds(entries: usize) -> i32 {
    let log2 = usize::BITS - entries.saturating_sub(1).leading_zeros();
    (log2 as i32 + 1)
        .min(entries.saturating_sub(1) as i32)
        .clamp(1, MOST_ROUNDS)
}

/// The organiser's tie-breaks as stored, in order.
pub fn tiebreaks_of(row: &TournamentRow) -> Vec<TieBreakKey> {
    row.tiebreaks
        .as_deref()
        .map(|text| text.split(',').filter_map(|k| k.parse().ok()).collect())
        .unwrap_or_default()
}

pub fn stored_tiebreaks(keys: &[TieBreakKey]) -> String {
    keys.iter().map(|k| k.key()).collect::<Vec<_>>().join(",")
}

fn tie_break(key: TieBreakKey) -> TieBreak {
    match key {
        TieBreakKey::Buchholz => TieBreak::Buchholz,
        TieBreakKey::BuchholzCut1 => TieBreak::BuchholzCut1,
        TieBreakKey::SonnebornBerger => TieBreak::SonnebornBerger,
        TieBreakKey::Progressive => TieBreak::Progressive,
        TieBreakKey::DirectEncounter => TieBreak::DirectEncounter,
    }
}

/// The tournament as a TRF report through its last paired round (a game
/// still under way has no result yet), with each player's account, by
/// pairing number.
#[derive(Debug)]
pub struct Field {
    pub report: Report,
    /// The players, the pairing number `n` at `n - 1`.
    pub players: Vec<(PlayerRow, String)>,
}

/// The players of a started Swiss by pairing number (seat).
fn seated(
    conn: &mut DbConnection,
    row: &TournamentRow,
) -> Result<Vec<(PlayerRow, String)>, ApiError> {
    let mut players: Vec<(PlayerRow, String)> = tournament::players_of(conn, &row.id)?
        .into_iter()
        .filter(|(p, _)| p.seat.is_some())
        .collect();
    players.sort_by_key(|(p, _)| p.seat);
    Ok(players)
}

/// The report of the rounds paired so far.
pub fn field(conn: &mut DbConnection, row: &TournamentRow) -> Result<Field, ApiError> {
    let players = seated(conn, row)?;
    let number: HashMap<AccountId, u32> = players
        .iter()
        .zip(1..)
        .map(|((p, _), n)| (p.account_id.clone(), n))
        .collect();
    let rounds = row.round.max(0) as usize;
    let blank = RoundEntry {
        opponent: None,
        colour: None,
        result: RoundResult::NotPlayed,
    };
    let mut lines: Vec<Vec<RoundEntry>> = vec![vec![blank; rounds]; players.len()];
    let entries = tournament::games_of(conn, &row.id)?;
    let ids: Vec<_> = entries.iter().map(|e| &e.game_id).collect();
    let games: HashMap<_, _> = game_rows::find_all(conn, &ids)?
        .into_iter()
        .map(|g| (g.id.clone(), g))
        .collect();
    let broken = |what: String| ApiError::Internal(format!("tournament {}: {what}", row.id));
    for entry in &entries {
        let game = games
            .get(&entry.game_id)
            .ok_or_else(|| broken(format!("no game {}", entry.game_id)))?;
        let seat = |account: &Option<AccountId>| {
            account
                .as_ref()
                .and_then(|a| number.get(a).copied())
                .ok_or_else(|| broken(format!("game {} has a player without a seat", game.id)))
        };
        let (white, black) = (seat(&game.white_id)?, seat(&game.black_id)?);
        let finished = game.status == GameStatus::Finished;
        let (w, b) = match game.result.filter(|_| finished) {
            Some(GameResult::WhiteWon) => (RoundResult::Win, RoundResult::Loss),
            Some(GameResult::BlackWon) => (RoundResult::Loss, RoundResult::Win),
            Some(GameResult::Draw) => (RoundResult::Draw, RoundResult::Draw),
            Some(GameResult::Unknown) | None => (RoundResult::NotPlayed, RoundResult::NotPlayed),
        };
        let at = (entry.round - 1) as usize;
        if at >= rounds {
            return Err(broken(format!(
                "a game of round {} not yet paired",
                entry.round
            )));
        }
        lines[white as usize - 1][at] = RoundEntry {
            opponent: Some(black),
            colour: Some(Colour::White),
            result: w,
        };
        lines[black as usize - 1][at] = RoundEntry {
            opponent: Some(white),
            colour: Some(Colour::Black),
            result: b,
        };
    }
    for bye in tournament::byes_of(conn, &row.id)? {
        let (Some(&n), Some(at)) = (
            number.get(&bye.account_id),
            (bye.round as usize)
                .checked_sub(1)
                .filter(|&at| at < rounds),
        ) else {
            continue;
        };
        lines[n as usize - 1][at] = RoundEntry {
            opponent: None,
            colour: None,
            result: match bye.kind {
                ByeKind::Pairing => RoundResult::PairingBye,
                ByeKind::Absent => RoundResult::ZeroBye,
            },
        };
    }
    let report = Report {
        name: Some(row.name.clone()),
        rounds: row.rounds.map(|r| r as u32),
        first_colour: None,
        players: players
            .iter()
            .zip(lines)
            .zip(1..)
            .map(|(((_, username), rounds), number)| trf::Player {
                number,
                sex: None,
                title: None,
                name: username.clone(),
                rating: None,
                federation: None,
                fide_id: None,
                birth_date: None,
                points_tenths: rounds.iter().map(|r| r.result.points_tenths()).sum(),
                rank: None,
                rounds,
            })
            .collect(),
        other_lines: Vec::new(),
    };
    Ok(Field { report, players })
}

/// Seats the players of a Swiss closing its sign-up by their rating in
/// its pool, the highest first (those joined earlier first among equals),
/// and pairs its first round.
pub fn start(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
) -> Result<(), ApiError> {
    let players = tournament::players_of(conn, &row.id)?;
    let pool = ratings::rated_start(row.start_kind);
    let mut seeded = Vec::with_capacity(players.len());
    for (joined, (player, _)) in players.iter().enumerate() {
        let rating = match pool {
            Some(start) => ratings::rating_in(conn, &player.account_id, row.rules, start)?,
            None => 0.0,
        };
        seeded.push((rating, joined, player.account_id.clone()));
    }
    seeded.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (seat, (_, _, account)) in (1..).zip(&seeded) {
        tournament::set_seat(conn, &row.id, account, seat)?;
    }
    let mut row = row.clone();
    row.rounds = Some(
        row.rounds
            .unwrap_or_else(|| recommended_rounds(players.len())),
    );
    pair_next(conn, outbox, now, &row)
}

/// Enters a late player into a Swiss under way: the next pairing number,
/// absent from the rounds paired already. Refused once the last round
/// is paired.
pub fn enter_late(
    conn: &mut DbConnection,
    row: &TournamentRow,
    player: &PlayerRow,
) -> Result<(), ApiError> {
    if row.rounds.is_some_and(|rounds| row.round >= rounds) {
        return Err(ApiError::Refused {
            code: Code::TournamentClosed,
            detail: "the last round is paired: no more entries".to_owned(),
        });
    }
    let seat = seated(conn, row)?.len() as i32 + 1;
    tournament::add_player(
        conn,
        &PlayerRow {
            seat: Some(seat),
            ..player.clone()
        },
    )?;
    for round in 1..=row.round {
        tournament::add_bye(
            conn,
            &ByeRow {
                tournament_id: row.id.clone(),
                account_id: player.account_id.clone(),
                round,
                kind: ByeKind::Absent,
            },
        )?;
    }
    Ok(())
}

/// After a game of the Swiss `row` (locked) ended: when it was the last of
/// the round paired last, pairs the next round, or finishes the
/// tournament after its last.
pub fn game_finished(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
    round: i32,
) -> Result<(), ApiError> {
    if round != row.round {
        return Ok(());
    }
    let ids: Vec<_> = tournament::games_of(conn, &row.id)?
        .into_iter()
        .filter(|g| g.round == round)
        .map(|g| g.game_id)
        .collect();
    let games = game_rows::find_all(conn, &ids.iter().collect::<Vec<_>>())?;
    if games.iter().any(|g| g.status == GameStatus::Started) {
        return Ok(());
    }
    pair_next(conn, outbox, now, row)
}

/// Pairs the round after the one paired last, or finishes the tournament
/// when none is left or the rules cannot pair it.
fn pair_next(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
) -> Result<(), ApiError> {
    let rounds = row.rounds.unwrap_or(MOST_ROUNDS);
    let round = row.round + 1;
    if round > rounds {
        return super::lifecycle::finish(conn, outbox, now, &row.id);
    }
    let Field {
        mut report,
        players,
    } = field(conn, row)?;
    if players
        .iter()
        .filter(|(p, _)| p.withdrawn_at.is_none())
        .count()
        < 2
    {
        return super::lifecycle::finish(conn, outbox, now, &row.id);
    }
    report.rounds = Some(rounds as u32);
    // Withdrawn players are absent from this round on: written before the
    // pairing, so that it leaves them out.
    let absent: Vec<usize> = players
        .iter()
        .enumerate()
        .filter(|(_, (p, _))| p.withdrawn_at.is_some())
        .map(|(at, _)| at)
        .collect();
    for &at in &absent {
        report.players[at].rounds.push(RoundEntry {
            opponent: None,
            colour: None,
            result: RoundResult::ZeroBye,
        });
    }
    let Ok(pairs) = pair_next_round(&report) else {
        return super::lifecycle::finish(conn, outbox, now, &row.id);
    };
    let deadline = row.round_days.map(|days| now + i64::from(days) * DAY);
    if !tournament::advance_round(conn, &row.id, round, rounds, deadline)? {
        return Ok(()); // another change paired it
    }
    let bye = |at: usize, kind: ByeKind| ByeRow {
        tournament_id: row.id.clone(),
        account_id: players[at].0.account_id.clone(),
        round,
        kind,
    };
    for &at in &absent {
        tournament::add_bye(conn, &bye(at, ByeKind::Absent))?;
    }
    let start = round_start(row)?;
    let clock_spec = clock::parse(row.clock.as_deref(), format_args!("tournament {}", row.id))?;
    let mut board = 0;
    for &(white, black) in &pairs {
        let white = white as usize - 1;
        let Some(black) = black else {
            tournament::add_bye(conn, &bye(white, ByeKind::Pairing))?;
            tell_round(conn, outbox, now, row, round, &players[white].0, None)?;
            continue;
        };
        let black = black as usize - 1;
        board += 1;
        let table = Table {
            round,
            board,
            start: &start,
            clock: clock_spec.as_ref(),
        };
        let game = open_game(
            conn,
            outbox,
            now,
            row,
            &table,
            &players[white],
            &players[black],
        )?;
        for at in [white, black] {
            tell_round(conn, outbox, now, row, round, &players[at].0, Some(&game))?;
        }
    }
    Ok(())
}

/// Tells a player that a round is paired: their game in it, or their bye.
fn tell_round(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
    round: i32,
    player: &PlayerRow,
    game: Option<&crate::stored::GameId>,
) -> Result<(), ApiError> {
    let (kind, data) = if round == 1 {
        (
            EventKind::TournamentStarted,
            json!({"tournament_id": row.id, "round": 1, "games": i32::from(game.is_some())}),
        )
    } else {
        (
            EventKind::TournamentRound,
            json!({"tournament_id": row.id, "round": round, "bye": game.is_none()}),
        )
    };
    events::record(conn, outbox, now, &player.account_id, kind, game, data)
}

/// The standings of a Swiss by its tie-breaks, with the report they were
/// read from.
pub fn standings(row: &TournamentRow, report: &Report) -> Vec<Standing> {
    let order: Vec<TieBreak> = tiebreaks_of(row).into_iter().map(tie_break).collect();
    tiebreaks::standings(report, &order)
}

#[cfg(test)]
mod tests {
    use super::recommended_rounds;

    #[test]
    fn rounds_for_a_single_winner_and_no_more_than_the_field_allows() {
        let table: Vec<(usize, i32)> = [2, 3, 4, 5, 8, 9, 16, 17, 100, 1000]
            .iter()
            .map(|&n| (n, recommended_rounds(n)))
            .collect();
        assert_eq!(
            table,
            [
                (2, 1),
                (3, 2),
                (4, 3),
                (5, 4),
                (8, 4),
                (9, 5),
                (16, 5),
                (17, 6),
                (100, 8),
                (1000, 11)
            ]
        );
    }
}
