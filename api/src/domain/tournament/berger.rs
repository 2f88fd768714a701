//! The Berger tables (FIDE Handbook C.05, Annex 1): who meets whom, with
//! which colour, in each round of a round robin.
//!
//! For an even `n` (an odd number of players adds a bye as `n`): in round
//! `r`, player `n` meets `p` (`(r + 1) / 2` in odd rounds, with Black;
//! `n / 2 + r / 2` in even rounds, with White), and the others pair off
//! around `p`: `p + k` (White) against `p - k`, counted round 1..n-1.

/// One game of a round: players numbered from 1, as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    pub white: usize,
    pub black: usize,
}

/// One round: its games in the table's order (the board numbers), and the
/// player who sits out when the number of players is odd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub games: Vec<Pairing>,
    pub bye: Option<usize>,
}

/// The rounds of a single round robin of `players` (at least 2).
pub fn single(players: usize) -> Vec<Round> {
    assert!(players >= 2, "a round robin needs two players");
    let n = players + players % 2;
    let others = n - 1;
    // Wraps a number of the circle into 1..=n-1.
    let wrap = |x: isize| (x - 1).rem_euclid(others as isize) as usize + 1;
    (1..=others)
        .map(|r| {
            let partner = if r % 2 == 1 {
                r.div_ceil(2)
            } else {
                n / 2 + r / 2
            };
            let first = if r % 2 == 1 {
                Pairing {
                    white: partner,
                    black: n,
                }
            } else {
                Pairing {
                    white: n,
                    black: partner,
                }
            };
            let rest = (1..n / 2).map(|k| Pairing {
                white: wrap((partner + k) as isize),
                black: wrap(partner as isize - k as isize),
            });
            let all: Vec<Pairing> = std::iter::once(first).chain(rest).collect();
            if n == players {
                return Round {
                    games: all,
                    bye: None,
                };
            }
            // `n` is the bye: whoever meets it sits the round out.
            let bye = if first.white == n {
                first.black
            } else {
                first.white
            };
            Round {
                games: all.into_iter().skip(1).collect(),
                bye: Some(bye),
            }
        })
        .collect()
}

/// The rounds of a double round robin: the single one, then again with
/// the colours reversed. (All of a correspondence round robin's games
/// start at once, as ICCF plays them, so the order of the rounds, which
/// FIDE adjusts for over-the-board play, does not arise.)
pub fn double(players: usize) -> Vec<Round> {
    let first = single(players);
    let second = first.iter().map(|round| Round {
        games: round
            .games
            .iter()
            .map(|g| Pairing {
                white: g.black,
                black: g.white,
            })
            .collect(),
        bye: round.bye,
    });
    first.clone().into_iter().chain(second).collect()
}
