//! A Swiss's standings: points, then the tie-breaks the organiser chose,
//! in order (FIDE Handbook C.07, the Tie-Break Regulations): Buchholz,
//! Buchholz cut 1, Sonneborn-Berger, progressive score, direct encounter.
//! Players level on points and on every tie-break share a place.
//!
//! Unplayed rounds as the regulations in force since August 2024 count
//! them (Article 16), and as FIDE's own TieBreakServer computes them:
//!
//! - A round a player did not play over the board (a bye, an absence, a
//!   forfeit) counts, for their own Buchholz and Sonneborn-Berger, as a
//!   game against a dummy opponent with the player's own final score, the
//!   result the points the round gave.
//! - A cut takes first the rounds the player chose not to play (a
//!   half-point or zero-point bye, a forfeit lost: the *voluntarily
//!   unplayed rounds*), and otherwise the least opponent's score.
//! - An opponent's score counts as it stands, but for the rounds they left
//!   without an opponent after the last they did not leave voluntarily (a
//!   withdrawal): each of those counts as a draw (16.3.2).
//!
//! Everything is kept in tenths of a point (Sonneborn-Berger, a product of
//! two scores, in hundredths), so that every comparison is exact.

use std::collections::BTreeMap;

use crate::trf::{Report, RoundResult};

/// A tie-break of C.07.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// The sum of the opponents' scores.
    Buchholz,
    /// Buchholz without the least significant opponent's score.
    BuchholzCut1,
    /// Each opponent's score times the points scored against them.
    SonnebornBerger,
    /// The sum of the player's score after each round.
    Progressive,
    /// Among the players still level, the points scored against one
    /// another, when each has met every other.
    DirectEncounter,
}

/// A player's line of the standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// The pairing number.
    pub number: u32,
    /// 1 for the first; players level on everything share a place.
    pub place: usize,
    pub points_tenths: u32,
    /// Each tie-break's value in the order asked: tenths of a point, and
    /// hundredths for Sonneborn-Berger.
    pub values: Vec<i64>,
}

/// The ranks among `tied` (0 the first; equal ranks shared) by their
/// games against one another (C.07 Article 6, as FIDE's TieBreakServer
/// applies it): when all have met, by the points scored in those games;
/// otherwise a player ranks ahead of the rest only with more points than
/// any of them could have had by winning the games they did not play
/// against the others. Each group the ranks split is ranked again by the
/// games within it, until none splits.
fn direct_encounter_ranks(tied: &[u32], rounds: &BTreeMap<u32, Vec<Round>>) -> Vec<usize> {
    let mut ranks = vec![0; tied.len()];
    let mut unsettled = true;
    while unsettled {
        unsettled = false;
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (at, &rank) in ranks.iter().enumerate() {
            groups.entry(rank).or_default().push(at);
        }
        for (base, members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
            let numbers: Vec<u32> = members.iter().map(|&at| tied[at]).collect();
            // Each member's points against the others and its games with them.
            let met: Vec<(i64, usize)> = numbers
                .iter()
                .map(|n| {
                    let games = rounds[n]
                        .iter()
                        .filter(|r| r.opponent.is_some_and(|o| numbers.contains(&o)));
                    games.fold((0, 0), |(points, count), r| {
                        (points + i64::from(r.scored), count + 1)
                    })
                })
                .collect();
            let others = members.len() - 1;
            let all_met = met.iter().all(|&(_, count)| count >= others);
            let most = |m: usize| met[m].0 + (others.saturating_sub(met[m].1) as i64) * 10;
            let mut order: Vec<usize> = (0..members.len()).collect();
            order.sort_by_key(|&m| {
                (
                    std::cmp::Reverse(met[m].0),
                    std::cmp::Reverse(most(m)),
                    numbers[m],
                )
            });
            let mut rank = base;
            let mut apart = true;
            for (place, pair) in order.windows(2).enumerate() {
                let (ahead, next) = (pair[0], pair[1]);
                let separated = if all_met {
                    met[ahead].0 > met[next].0
                } else {
                    apart && order[place + 1..].iter().all(|&m| met[ahead].0 > most(m))
                };
                if separated {
                    rank = base + place + 1;
                    unsettled = true;
                } else {
                    apart = false;
                }
                ranks[members[next]] = rank;
            }
        }
    }
    ranks
}

/// What a player did in a round, as the tie-breaks read it.
#[derive(Debug, Clone, Copy)]
struct Round {
    /// The opponent met over the board, if any.
    opponent: Option<u32>,
    /// Whether an opponent was named: met, or a forfeit.
    paired: bool,
    /// A voluntarily unplayed round: a half-point or zero-point bye, an
    /// absence, a forfeit lost.
    voluntary: bool,
    /// Points scored in the round, in tenths.
    scored: u32,
}

/// A draw, in tenths: what a withdrawn player's rounds count as for their
/// opponents.
const DRAW: u32 = 5;

/// A player's score as their opponents' tie-breaks count it: the rounds
/// without an opponent after their last round not left voluntarily count
/// as draws (C.07 16.3.2).
fn score_for_opponents(rounds: &[Round]) -> u32 {
    let last_kept = rounds.iter().rposition(|r| !r.voluntary);
    rounds
        .iter()
        .enumerate()
        .map(|(at, r)| {
            if r.paired || last_kept.is_some_and(|last| at <= last) {
                r.scored
            } else {
                DRAW
            }
        })
        .sum()
}

/// The standings of the players of `report`, best first.
pub fn standings(report: &Report, order: &[TieBreak]) -> Vec<Standing> {
    let rounds: BTreeMap<u32, Vec<Round>> = report
        .players
        .iter()
        .map(|p| {
            let played = p
                .rounds
                .iter()
                .map(|r| Round {
                    opponent: r.opponent.filter(|_| r.result.is_played()),
                    paired: r.opponent.is_some(),
                    voluntary: matches!(
                        r.result,
                        RoundResult::HalfBye
                            | RoundResult::ZeroBye
                            | RoundResult::ForfeitLoss
                            | RoundResult::NotPlayed
                    ),
                    scored: r.result.points_tenths(),
                })
                .collect();
            (p.number, played)
        })
        .collect();
    let score: BTreeMap<u32, u32> = rounds
        .iter()
        .map(|(&n, rs)| (n, rs.iter().map(|r| r.scored).sum()))
        .collect();
    let counted: BTreeMap<u32, u32> = rounds
        .iter()
        .map(|(&n, rs)| (n, score_for_opponents(rs)))
        .collect();
    let mut lines: Vec<Standing> = rounds
        .keys()
        .map(|&number| Standing {
            number,
            place: 0,
            points_tenths: score[&number],
            values: Vec::with_capacity(order.len()),
        })
        .collect();
    for line in &mut lines {
        let own = &rounds[&line.number];
        let mine = score[&line.number];
        // Each round's opponent score: the dummy's (the player's own) for
        // a round not played; a voluntarily unplayed one marked, so that a
        // cut takes it first.
        let opponents: Vec<(bool, u32, u32)> = own
            .iter()
            .map(|r| match r.opponent {
                Some(o) => (true, counted[&o], r.scored),
                None => (!r.voluntary, mine, r.scored),
            })
            .collect();
        for tie_break in order {
            let value = match tie_break {
                TieBreak::Buchholz => opponents.iter().map(|o| i64::from(o.1)).sum(),
                TieBreak::BuchholzCut1 => {
                    let all: i64 = opponents.iter().map(|o| i64::from(o.1)).sum();
                    let cut = opponents.iter().min_by_key(|o| (o.0, o.1)).map(|o| o.1);
                    all - cut.map_or(0, i64::from)
                }
                TieBreak::SonnebornBerger => opponents
                    .iter()
                    .map(|o| i64::from(o.1) * i64::from(o.2))
                    .sum(),
                TieBreak::Progressive => {
                    let mut running = 0i64;
                    own.iter()
                        .map(|r| {
                            running += i64::from(r.scored);
                            running
                        })
                        .sum()
                }
                // Filled in below, once the players level before it are known.
                TieBreak::DirectEncounter => 0,
            };
            line.values.push(value);
        }
    }
    // Direct encounter, tie-break by tie-break: among the players level on
    // points and every tie-break before it.
    for (i, tie_break) in order.iter().enumerate() {
        if *tie_break != TieBreak::DirectEncounter {
            continue;
        }
        let mut groups: BTreeMap<(u32, Vec<i64>), Vec<usize>> = BTreeMap::new();
        for (at, line) in lines.iter().enumerate() {
            groups
                .entry((line.points_tenths, line.values[..i].to_vec()))
                .or_default()
                .push(at);
        }
        for members in groups.values().filter(|m| m.len() > 1) {
            let numbers: Vec<u32> = members.iter().map(|&at| lines[at].number).collect();
            let ranks = direct_encounter_ranks(&numbers, &rounds);
            for (&at, rank) in members.iter().zip(&ranks) {
                lines[at].values[i] = ranks.iter().filter(|&&other| other > *rank).count() as i64;
            }
        }
    }
    lines.sort_by(|a, b| {
        (b.points_tenths, &b.values)
            .cmp(&(a.points_tenths, &a.values))
            .then(a.number.cmp(&b.number))
    });
    for at in 0..lines.len() {
        lines[at].place = if at > 0
            && (lines[at].points_tenths, &lines[at].values)
                == (lines[at - 1].points_tenths, &lines[at - 1].values)
        {
            lines[at - 1].place
        } else {
            at + 1
        };
    }
    lines
}
