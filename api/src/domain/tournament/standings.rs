//! A round robin's standings: points, then ICCF's tie-breaks in order (the
//! number of wins, Baumbach; Sonneborn-Berger; the games between the
//! players still level), players level on all of them sharing a place.
//!
//! Withdrawals follow FIDE's rule for round robins (General Regulations for
//! Competitions, C.05): a player who withdraws having finished fewer than
//! half of their games has all their results annulled, as if they had never
//! played; otherwise their unfinished games are lost by forfeit.
//!
//! Points are kept in half points and Sonneborn-Berger in quarter points,
//! so that every comparison is exact.

use std::collections::{BTreeMap, BTreeSet};

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    WhiteWon,
    BlackWon,
    Draw,
}

/// A game of the tournament between two players (numbered from 0); `None`
/// while it is under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    pub white: usize,
    pub black: usize,
    pub outcome: Option<Outcome>,
}

/// One player's line of the standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub player: usize,
    /// 1 for the first; players level on every tie-break share a place.
    pub place: usize,
    pub half_points: u32,
    pub wins: u32,
    /// Sonneborn-Berger in quarter points: the points of each opponent
    /// beaten, and half those of each opponent drawn.
    pub sonneborn_berger_quarters: u32,
    /// Half points won against the players level with this one on points,
    /// wins and Sonneborn-Berger.
    pub direct_half_points: u32,
    pub finished: u32,
    pub unfinished: u32,
    pub withdrawn: bool,
    /// Withdrawn before finishing half of their games: their results do
    /// not count, for them or their opponents.
    pub annulled: bool,
}

/// The games as the withdrawal rule counts them: an annulled player's
/// games left out, a withdrawn player's other unfinished games lost.
/// `withdrawn` holds, for each player who withdrew, how many of their
/// games were finished then (their games under way are resigned as they
/// withdraw, so that later they all look finished).
fn counted(games: &[Game], withdrawn: &BTreeMap<usize, u32>) -> (Vec<Game>, BTreeSet<usize>) {
    let annulled: BTreeSet<usize> = withdrawn
        .iter()
        .filter(|&(&p, &finished)| {
            let all = games
                .iter()
                .filter(|g| g.white == p || g.black == p)
                .count();
            2 * finished < all as u32
        })
        .map(|(&p, _)| p)
        .collect();
    let kept = games
        .iter()
        .filter(|g| !annulled.contains(&g.white) && !annulled.contains(&g.black))
        .map(|&g| {
            let white_gone = withdrawn.contains_key(&g.white);
            let black_gone = withdrawn.contains_key(&g.black);
            let outcome = g.outcome.or(match (white_gone, black_gone) {
                (true, false) => Some(Outcome::BlackWon),
                (false, true) => Some(Outcome::WhiteWon),
                // Both gone, or both still playing: unfinished.
                (true, true) | (false, false) => None,
            });
            Game { outcome, ..g }
        })
        .collect();
    (kept, annulled)
}

/// Half points each side of `game` scored, if it is finished.
fn scores(game: &Game) -> Option<(u32, u32)> {
    game.outcome.map(|outcome| match outcome {
        Outcome::WhiteWon => (2, 0),
        Outcome::BlackWon => (0, 2),
        Outcome::Draw => (1, 1),
    })
}

/// The standings of `players` players after `games`, with the players in
/// `withdrawn` withdrawn (see [`counted`]); in order of place, then of
/// player number.
pub fn standings(
    players: usize,
    games: &[Game],
    withdrawn: &BTreeMap<usize, u32>,
) -> Vec<Standing> {
    let (games, annulled) = counted(games, withdrawn);
    let mut rows: Vec<Standing> = (0..players)
        .map(|player| Standing {
            player,
            place: 0,
            half_points: 0,
            wins: 0,
            sonneborn_berger_quarters: 0,
            direct_half_points: 0,
            finished: 0,
            unfinished: 0,
            withdrawn: withdrawn.contains_key(&player),
            annulled: annulled.contains(&player),
        })
        .collect();
    for game in &games {
        match scores(game) {
            Some((white, black)) => {
                for (player, scored) in [(game.white, white), (game.black, black)] {
                    rows[player].half_points += scored;
                    rows[player].wins += u32::from(scored == 2);
                    rows[player].finished += 1;
                }
            }
            None => {
                rows[game.white].unfinished += 1;
                rows[game.black].unfinished += 1;
            }
        }
    }
    let points: Vec<u32> = rows.iter().map(|r| r.half_points).collect();
    for game in &games {
        if let Some((white, black)) = scores(game) {
            // A win earns the opponent's points, a draw half of them:
            // `scored` half points times the opponent's half points is
            // already in quarters.
            rows[game.white].sonneborn_berger_quarters += white * points[game.black];
            rows[game.black].sonneborn_berger_quarters += black * points[game.white];
        }
    }
    let level = |r: &Standing| (r.half_points, r.wins, r.sonneborn_berger_quarters);
    for i in 0..players {
        let group: Vec<usize> = (0..players)
            .filter(|&j| level(&rows[j]) == level(&rows[i]))
            .collect();
        rows[i].direct_half_points = games
            .iter()
            .filter(|g| g.white != g.black && group.contains(&g.white) && group.contains(&g.black))
            .filter_map(|g| {
                let (white, black) = scores(g)?;
                if g.white == i {
                    Some(white)
                } else if g.black == i {
                    Some(black)
                } else {
                    None
                }
            })
            .sum();
    }
    let key = |r: &Standing| {
        std::cmp::Reverse((
            r.half_points,
            r.wins,
            r.sonneborn_berger_quarters,
            r.direct_half_points,
        ))
    };
    rows.sort_by_key(|r| (key(r), r.player));
    for i in 0..rows.len() {
        rows[i].place = if i > 0 && key(&rows[i]) == key(&rows[i - 1]) {
            rows[i - 1].place
        } else {
            i + 1
        };
    }
    rows
}
