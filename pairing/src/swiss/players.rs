//! What the pairing of the next round reads of each player (FIDE Handbook
//! C.04.3, section A: score, colour difference and preference, floats,
//! opponents, byes, topscorers), from a tournament's TRF.

use std::collections::BTreeSet;

use crate::trf::{Colour, Report, RoundEntry};

/// How much a player wants a colour (C.04.3 A.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// No game played yet: the opponent's preference is granted.
    None,
    /// Colour difference 0: alternate from the last game.
    Mild,
    /// Colour difference +1 or -1.
    Strong,
    /// Colour difference beyond ±1, or the same colour in the last two
    /// games played.
    Absolute,
}

/// A colour preference: which colour, and how strongly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preference {
    pub colour: Option<Colour>,
    pub strength: Strength,
}

/// A player's float in a round (C.04.3 A.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Float {
    None,
    /// Met a player of a higher score.
    Up,
    /// Met a player of a lower score, or did not play.
    Down,
}

/// One player as the next round's pairing sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    /// The pairing number (starting rank).
    pub number: u32,
    /// The score, in tenths of a point (A.2).
    pub points_tenths: u32,
    /// The colours of the games played, in order.
    pub colours: Vec<Colour>,
    /// Games with white less games with black (A.6).
    pub colour_difference: i32,
    /// The same colour in the last two games played.
    pub colour_double: bool,
    pub preference: Preference,
    /// The floats of the last round and of the round before it.
    pub floats: [Float; 2],
    /// The players met over the board.
    pub opponents: BTreeSet<u32>,
    /// Has had the pairing-allocated bye or won by forfeit (C.04.3 C.2:
    /// may not have the bye again).
    pub bye_received: bool,
    /// More than half of the maximum score when the last round is paired
    /// (A.7).
    pub topscorer: bool,
}

/// The players to be paired in the next round, in the report's order:
/// those with a line for every round played. A player whose line already
/// holds the next round (an absence or a requested bye, written before the
/// pairing) is not paired.
pub fn entrants(report: &Report) -> Vec<Entrant> {
    let played_rounds = report
        .players
        .iter()
        .map(|p| p.rounds.len())
        .min()
        .unwrap_or(0);
    // Each player's score before each round, and after the last.
    let scores = |rounds: &[RoundEntry]| -> Vec<u32> {
        let mut before = Vec::with_capacity(rounds.len() + 1);
        let mut total = 0;
        before.push(0);
        for entry in rounds.iter().take(played_rounds) {
            total += entry.result.points_tenths();
            before.push(total);
        }
        before
    };
    let score_of = |number: u32, round: usize| -> u32 {
        report
            .players
            .iter()
            .find(|p| p.number == number)
            .map_or(0, |p| scores(&p.rounds)[round])
    };
    let last_round = report
        .rounds
        .is_some_and(|total| played_rounds + 1 == total as usize);
    let max_tenths = 10 * played_rounds as u32;
    report
        .players
        .iter()
        .filter(|p| p.rounds.len() == played_rounds)
        .map(|player| {
            let rounds = &player.rounds;
            let points_tenths = *scores(rounds).last().expect("at least the start");
            let played: Vec<&RoundEntry> = rounds.iter().filter(|r| r.result.is_played()).collect();
            let colours: Vec<Colour> = played.iter().filter_map(|r| r.colour).collect();
            let whites = colours.iter().filter(|&&c| c == Colour::White).count() as i32;
            let colour_difference = 2 * whites - colours.len() as i32;
            let colour_double =
                colours.len() > 1 && colours[colours.len() - 1] == colours[colours.len() - 2];
            let float_in = |round: Option<usize>| -> Float {
                let Some(round) = round else {
                    return Float::None;
                };
                let entry = &rounds[round];
                match entry.opponent {
                    Some(opponent) if entry.result.is_played() => {
                        let (mine, theirs) =
                            (score_of(player.number, round), score_of(opponent, round));
                        match mine.cmp(&theirs) {
                            std::cmp::Ordering::Greater => Float::Down,
                            std::cmp::Ordering::Less => Float::Up,
                            std::cmp::Ordering::Equal => Float::None,
                        }
                    }
                    _ => Float::Down,
                }
            };
            Entrant {
                number: player.number,
                points_tenths,
                colour_difference,
                colour_double,
                preference: preference(&colours, colour_difference, colour_double),
                floats: [
                    float_in(played_rounds.checked_sub(1)),
                    float_in(played_rounds.checked_sub(2)),
                ],
                opponents: played.iter().filter_map(|r| r.opponent).collect(),
                bye_received: rounds.iter().any(|r| {
                    matches!(
                        r.result,
                        crate::trf::RoundResult::PairingBye | crate::trf::RoundResult::ForfeitWin
                    )
                }),
                topscorer: last_round && 2 * points_tenths > max_tenths,
                colours,
            }
        })
        .collect()
}

/// C.04.3 A.6: absolute beyond a difference of one ("white when the
/// colour difference is less than -1 or when the last two games were
/// played with black"), strong at one, mild at zero (alternating from the
/// last game), none before the first game.
fn preference(colours: &[Colour], difference: i32, double: bool) -> Preference {
    let opposite = |colour: Colour| match colour {
        Colour::White => Colour::Black,
        Colour::Black => Colour::White,
    };
    let last = colours.last().copied();
    let (colour, strength) = if difference < -1 {
        (Some(Colour::White), Strength::Absolute)
    } else if difference > 1 {
        (Some(Colour::Black), Strength::Absolute)
    } else if double {
        (last.map(opposite), Strength::Absolute)
    } else if difference == -1 {
        (Some(Colour::White), Strength::Strong)
    } else if difference == 1 {
        (Some(Colour::Black), Strength::Strong)
    } else if let Some(last) = last {
        (Some(opposite(last)), Strength::Mild)
    } else {
        (None, Strength::None)
    };
    Preference { colour, strength }
}
