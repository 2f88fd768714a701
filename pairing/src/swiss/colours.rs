//! Who has white in a pair (FIDE Handbook C.04.3, section E), and the
//! order in which a round's pairs are published (C.04.2 D.9).

use std::cmp::Ordering;

use super::players::{Entrant, Strength};
use crate::trf::Colour;

fn opposite(colour: Colour) -> Colour {
    match colour {
        Colour::White => Colour::Black,
        Colour::Black => Colour::White,
    }
}

/// The pairing order of A.2: the higher score first, then the lower
/// pairing number.
pub fn ranks_above(a: &Entrant, b: &Entrant) -> bool {
    (a.points_tenths, std::cmp::Reverse(a.number)) > (b.points_tenths, std::cmp::Reverse(b.number))
}

/// The colour of the higher-ranked player of a pair (`higher`, paired
/// with `lower`) by the first of E.1-E.5 that decides; `first_colour` is
/// the initial colour (TRF's `XXC`; white when not set).
pub fn colour_of_higher(higher: &Entrant, lower: &Entrant, first_colour: Colour) -> Colour {
    let (hp, lp) = (higher.preference, lower.preference);
    // E.1: both preferences granted, when they differ.
    if let (Some(h), Some(l)) = (hp.colour, lp.colour)
        && h != l
    {
        return h;
    }
    // E.2: the stronger preference; of two absolute ones (topscorers),
    // the wider colour difference.
    match hp.strength.cmp(&lp.strength) {
        Ordering::Greater => {
            if let Some(h) = hp.colour {
                return h;
            }
        }
        Ordering::Less => {
            if let Some(l) = lp.colour {
                return opposite(l);
            }
        }
        Ordering::Equal => {
            let (hd, ld) = (
                higher.colour_difference.abs(),
                lower.colour_difference.abs(),
            );
            if hp.strength == Strength::Absolute && hd != ld {
                let wider = if hd > ld {
                    hp.colour
                } else {
                    lp.colour.map(opposite)
                };
                if let Some(colour) = wider {
                    return colour;
                }
            }
        }
    }
    // E.3: alternate from the latest round, counting back over each one's
    // games played, in which they had different colours.
    for (h, l) in higher.colours.iter().rev().zip(lower.colours.iter().rev()) {
        if h != l {
            return opposite(*h);
        }
    }
    // E.4: the higher-ranked player's preference.
    if let Some(h) = hp.colour {
        return h;
    }
    // E.5: the initial colour to an odd pairing number, the other to an
    // even one.
    if higher.number % 2 == 1 {
        first_colour
    } else {
        opposite(first_colour)
    }
}

/// A round's pairs as published (C.04.2 D.9): by the higher-ranked
/// player's score, then the other's, then the higher-ranked player's
/// pairing number; the bye last. Each pair is (white, black), the bye
/// (player, None).
pub fn publishing_order(entrants: &[Entrant], pairs: &mut [(u32, Option<u32>)]) {
    let find = |n: u32| entrants.iter().find(|e| e.number == n);
    let key = |&(white, black): &(u32, Option<u32>)| {
        let Some((a, b)) = find(white).zip(black.and_then(find)) else {
            return None; // the bye
        };
        let (high, low) = if ranks_above(a, b) { (a, b) } else { (b, a) };
        Some((
            high.points_tenths,
            low.points_tenths,
            std::cmp::Reverse(high.number),
        ))
    };
    pairs.sort_by_key(|pair| std::cmp::Reverse(key(pair)));
}
