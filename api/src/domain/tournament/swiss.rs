//! A Swiss after its start. The rounds so far are read as FIDE's TRF-2016
//! report (what the Dutch system pairs from, and what is exported for
//! other pairing programs to check); each round is paired when the one
//! before it ends, as a follow-up of the change that ended its last game:
//! computed from the report off the writers' turn, then written in a
//! change of its own if the report still holds, the tournament locked and
//! its round advanced only from the round that ended, so that two
//! instances closing it at once pair it once (and the sweep pairs a round
//! a stop left unpaired). That change stores the round's pairs and its
//! byes; the games are then written [`GAMES_A_STEP`] a change, each step
//! the follow-up of the one before (a stop between two leaves the rest to
//! the sweep), so that a round of hundreds of games never holds the
//! writers' turn for long. Withdrawn players are absent from the rounds
//! after; late entries join before a round and are absent from those
//! before it. A round the rules cannot pair (C.1-C.3
//! leave no pairing) ends the tournament, as an arbiter would.

use std::{collections::HashMap, sync::Arc};

use kingpost_pairing::{
    swiss::{
        dutch::{Pairs, pair_next_round},
        tiebreaks::{self, Standing, TieBreak},
    },
    trf::{self, Colour, Report, RoundEntry, RoundResult},
};
use serde_json::json;

use super::lifecycle::{Table, open_game, round_start};
use crate::{
    clock::{DAY, Millis},
    db::{DbConnection, Yield, write_transaction},
    domain::{
        events,
        game::{clock, spec_from_parts},
        ratings,
    },
    error::{ApiError, Code},
    models::{
        game::{self as game_rows, GameResult, GameStatus},
        tournament::{self, ByeRow, PairingRow, PlayerRow, TournamentRow},
    },
    notify::{FollowUp, Outbox, Prepared},
    stored::{AccountId, TournamentId},
    views::{ByeKind, EventKind, StartSpec, TieBreakKey, TournamentFormat, TournamentStatus},
};

/// The most players a Swiss takes: the largest field whose round the
/// Dutch system pairs in under a second (BENCHMARKS.md).
pub const MOST_PLAYERS: i32 = 1_000;
/// The most of a round's games written a change: a round of 500 games is
/// written in 25 short changes or more rather than one long one (a change
/// ends sooner when a request waits for SQLite's writers' turn).
pub const GAMES_A_STEP: usize = 20;
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
/// its pool, the highest first (those joined earlier first among equals);
/// its first round is paired once the change is committed.
pub fn start(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    row: &TournamentRow,
) -> Result<(), ApiError> {
    let players = tournament::players_of(conn, &row.id)?;
    let accounts: Vec<&AccountId> = players.iter().map(|(p, _)| &p.account_id).collect();
    // A start no pool rates seeds by sign-up alone.
    let held = match ratings::rated_start(row.start_kind) {
        Some(start) => Some(ratings::ratings_in(conn, &accounts, row.rules, start)?),
        None => None,
    };
    let mut seeded = Vec::with_capacity(players.len());
    for (joined, (player, _)) in players.iter().enumerate() {
        let rating = held
            .as_ref()
            .map_or(0.0, |held| held.of(&player.account_id));
        seeded.push((rating, joined, player.account_id.clone()));
    }
    seeded.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (seat, (_, _, account)) in (1..).zip(&seeded) {
        tournament::set_seat(conn, &row.id, account, seat)?;
    }
    outbox.follow_with(Arc::new(PairRound(row.id.clone())));
    Ok(())
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
/// the round paired last, the next round is to be paired (or the
/// tournament finished) once this change is committed.
pub fn game_finished(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    row: &TournamentRow,
    round: i32,
) -> Result<(), ApiError> {
    if round == row.round && round_over(conn, row)? {
        outbox.follow_with(Arc::new(PairRound(row.id.clone())));
    }
    Ok(())
}

/// Whether a Swiss under way waits for its next round: just started, or
/// every game of the round paired last written and ended.
fn round_over(conn: &mut DbConnection, row: &TournamentRow) -> Result<bool, ApiError> {
    if row.status != TournamentStatus::Started || row.format != TournamentFormat::Swiss {
        return Ok(false);
    }
    if !tournament::pairings_pending(conn, &row.id, 1)?.is_empty() {
        return Ok(false);
    }
    let ids: Vec<_> = tournament::games_of(conn, &row.id)?
        .into_iter()
        .filter(|g| g.round == row.round)
        .map(|g| g.game_id)
        .collect();
    let games = game_rows::find_all(conn, &ids.iter().collect::<Vec<_>>())?;
    Ok(games.iter().all(|g| g.status != GameStatus::Started))
}

/// What a stop left undone in the Swiss under way, for the sweep: rounds
/// that wait for their pairing, and rounds paired whose games are not all
/// written.
pub fn rounds_due(conn: &mut DbConnection) -> Result<Vec<Arc<dyn FollowUp>>, ApiError> {
    let mut due: Vec<Arc<dyn FollowUp>> = Vec::new();
    for row in tournament::swiss_under_way(conn)? {
        if round_over(conn, &row)? {
            due.push(Arc::new(PairRound(row.id)));
        }
    }
    for id in tournament::with_pairings_pending(conn)? {
        due.push(Arc::new(WriteGames(id)));
    }
    Ok(due)
}

/// Pairs a Swiss's next round (or finishes it after its last, or when the
/// rules cannot pair the next): the pairing computed from the report read
/// off the writers' turn, written if the report is still the same, only
/// from the round that ended, so that two instances pair it once.
#[derive(Debug)]
pub struct PairRound(pub TournamentId);

/// What a round is paired from: the report of the rounds before it, the
/// withdrawn players absent from it.
struct Input {
    round: i32,
    rounds: i32,
    report: Report,
    players: Vec<(PlayerRow, String)>,
    absent: Vec<usize>,
}

/// The next round's input, or none when the tournament is over (its last
/// round played, or fewer than two players left).
fn input(conn: &mut DbConnection, row: &TournamentRow) -> Result<Option<Input>, ApiError> {
    let Field {
        mut report,
        players,
    } = field(conn, row)?;
    let rounds = row
        .rounds
        .unwrap_or_else(|| recommended_rounds(players.len()));
    let round = row.round + 1;
    let playing = players
        .iter()
        .filter(|(p, _)| p.withdrawn_at.is_none())
        .count();
    if round > rounds || playing < 2 {
        return Ok(None);
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
    Ok(Some(Input {
        round,
        rounds,
        report,
        players,
        absent,
    }))
}

/// A round's pairing as computed: the report it was read from (none: the
/// tournament was over), and its pairs (none: finish it).
struct Pairing {
    id: TournamentId,
    after: i32,
    report: Option<Report>,
    pairs: Option<Pairs>,
}

impl FollowUp for PairRound {
    fn prepare(&self, conn: &mut DbConnection) -> Result<Option<Box<dyn Prepared>>, ApiError> {
        let Some(row) = tournament::find(conn, &self.0)? else {
            return Ok(None);
        };
        if !round_over(conn, &row)? {
            return Ok(None);
        }
        let input = input(conn, &row)?;
        let pairs = input
            .as_ref()
            .and_then(|input| pair_next_round(&input.report).ok());
        Ok(Some(Box::new(Pairing {
            id: row.id,
            after: row.round,
            report: input.map(|input| input.report),
            pairs,
        })))
    }
}

impl Prepared for Pairing {
    fn write(
        self: Box<Self>,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: Millis,
        _: &dyn Yield,
    ) -> Result<bool, ApiError> {
        write_transaction(conn, |conn| {
            let Some(row) = tournament::find_for_update(conn, &self.id)? else {
                return Ok(true);
            };
            if row.round != self.after || !round_over(conn, &row)? {
                return Ok(true); // paired by another change, or not due
            }
            let input = input(conn, &row)?;
            if input.as_ref().map(|i| &i.report) != self.report.as_ref() {
                return Ok(false); // an entry or a withdrawal since
            }
            match (input, &self.pairs) {
                (Some(input), Some(pairs)) => write_round(conn, outbox, now, &row, input, pairs)?,
                _ => super::lifecycle::finish(conn, outbox, now, &row.id)?,
            }
            Ok(true)
        })
    }
}

/// Writes a round's pairing: the round advanced (conditionally: see
/// [`tournament::advance_round`]), its byes and absences, and its pairs,
/// whose games [`WriteGames`] writes after.
fn write_round(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
    input: Input,
    pairs: &Pairs,
) -> Result<(), ApiError> {
    let Input {
        round,
        rounds,
        players,
        absent,
        ..
    } = input;
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
    let start_number = drawn_number(&round_start(row)?);
    let mut boards = Vec::new();
    for &(white, black) in pairs {
        let at = white as usize - 1;
        let white = &players[at].0;
        let Some(black) = black else {
            tournament::add_bye(conn, &bye(at, ByeKind::Pairing))?;
            tell_round(conn, outbox, now, row, round, &white.account_id, None)?;
            continue;
        };
        boards.push(PairingRow {
            tournament_id: row.id.clone(),
            round,
            board: boards.len() as i32 + 1,
            white_id: white.account_id.clone(),
            black_id: players[black as usize - 1].0.account_id.clone(),
            start_number,
        });
    }
    tournament::add_pairings(conn, &boards)?;
    outbox.follow_with(Arc::new(WriteGames(row.id.clone())));
    Ok(())
}

/// The array a drawn start holds, if it is one of many (Chess960,
/// Shuffle): what the round's games are started from.
fn drawn_number(start: &StartSpec) -> Option<i32> {
    match start {
        StartSpec::Chess960 { id } | StartSpec::Shuffle { id } => id.map(i32::from),
        _ => None,
    }
}

/// Writes the games of a Swiss round's stored pairs, [`GAMES_A_STEP`] a
/// change at most (fewer when a request comes to wait), each step leaving
/// the next as its follow-up.
#[derive(Debug)]
pub struct WriteGames(pub TournamentId);

impl FollowUp for WriteGames {
    fn prepare(&self, conn: &mut DbConnection) -> Result<Option<Box<dyn Prepared>>, ApiError> {
        let pending = tournament::pairings_pending(conn, &self.0, 1)?;
        Ok((!pending.is_empty()).then(|| Box::new(GamesStep(self.0.clone())) as Box<dyn Prepared>))
    }
}

/// One step of [`WriteGames`].
struct GamesStep(TournamentId);

impl Prepared for GamesStep {
    fn write(
        self: Box<Self>,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: Millis,
        yielding: &dyn Yield,
    ) -> Result<bool, ApiError> {
        write_transaction(conn, |conn| {
            let Some(row) = tournament::find_for_update(conn, &self.0)? else {
                return Ok(true);
            };
            let step = tournament::pairings_pending(conn, &row.id, GAMES_A_STEP as i64 + 1)?;
            let players = tournament::players_of(conn, &row.id)?;
            let mut written = 0;
            for pairing in step.iter().take(GAMES_A_STEP) {
                write_game(conn, outbox, now, &row, &players, pairing)?;
                written += 1;
                if yielding.now() {
                    break;
                }
            }
            if step.len() > written {
                outbox.follow_with(Arc::new(WriteGames(row.id.clone())));
            }
            Ok(true)
        })
    }
}

/// Writes the game of a stored pair, its players told, and forgets the
/// pair.
fn write_game(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
    players: &[(PlayerRow, String)],
    pairing: &PairingRow,
) -> Result<(), ApiError> {
    let seat = |account: &AccountId| {
        players
            .iter()
            .find(|(p, _)| p.account_id == *account)
            .ok_or_else(|| ApiError::Internal(format!("a paired player of {} is gone", row.id)))
    };
    let (white, black) = (seat(&pairing.white_id)?, seat(&pairing.black_id)?);
    let start = spec_from_parts(
        row.start_kind,
        pairing.start_number,
        row.start_fen.as_deref().unwrap_or_default(),
    );
    let clock_spec = clock::parse(row.clock.as_deref(), format_args!("tournament {}", row.id))?;
    let table = Table {
        round: pairing.round,
        board: pairing.board,
        start: &start,
        clock: clock_spec.as_ref(),
    };
    let game = open_game(conn, outbox, now, row, &table, white, black)?;
    for account in [&pairing.white_id, &pairing.black_id] {
        tell_round(conn, outbox, now, row, pairing.round, account, Some(&game))?;
    }
    tournament::remove_pairing(conn, pairing)?;
    Ok(())
}

/// Writes the game of `account`'s stored pair, if the round's games are
/// still being written: a withdrawal then resigns it as any other.
pub fn write_game_of(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    row: &TournamentRow,
    account: &AccountId,
) -> Result<(), ApiError> {
    if let Some(pairing) = tournament::pairing_of(conn, &row.id, account)? {
        let players = tournament::players_of(conn, &row.id)?;
        write_game(conn, outbox, now, row, &players, &pairing)?;
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
    account: &AccountId,
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
    events::record(conn, outbox, now, account, kind, game, data)
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
