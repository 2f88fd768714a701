//! A Swiss's standings: points, then the tie-breaks the organiser chose,
//! in order (FIDE Handbook C.07, the Tie-Break Regulations): Buchholz,
//! Buchholz cut 1, Sonneborn-Berger, progressive score, direct encounter.
//! Players level on points and on every tie-break share a place.
//!
//! A round a player did not play (the pairing-allocated bye, an absence)
//! counts, for their own Buchholz and Sonneborn-Berger, as a game against
//! a dummy opponent with the player's own final score, the result the
//! points the round gave; a cut takes those rounds first. An opponent's
//! score is their actual score.
//!
//! Everything is kept in tenths of a point (Sonneborn-Berger, a product of
//! two scores, in hundredths), so that every comparison is exact.

use std::collections::BTreeMap;

use crate::trf::Report;

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

/// What a player did in a round, as the tie-breaks read it.
#[derive(Debug, Clone, Copy)]
struct Round {
    /// The opponent met over the board, if any.
    opponent: Option<u32>,
    /// Points scored in the round, in tenths.
    scored: u32,
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
        // a round not played, marked so that a cut takes it first.
        let opponents: Vec<(bool, u32, u32)> = own
            .iter()
            .map(|r| match r.opponent {
                Some(o) => (true, score[&o], r.scored),
                None => (false, mine, r.scored),
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
            let met_all = numbers.iter().all(|&a| {
                numbers
                    .iter()
                    .all(|&b| a == b || rounds[&a].iter().any(|r| r.opponent == Some(b)))
            });
            if !met_all {
                continue;
            }
            for &at in members {
                let me = lines[at].number;
                lines[at].values[i] = rounds[&me]
                    .iter()
                    .filter(|r| r.opponent.is_some_and(|o| numbers.contains(&o)))
                    .map(|r| i64::from(r.scored))
                    .sum();
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
