//! A pairing bracket (FIDE Handbook C.04.3 A.3) and the weight of each
//! pair in it: the quality criteria C.5-C.19 packed into one integer, the
//! most important criterion in the highest bits, so that a matching of
//! maximum total weight is the best pairing the criteria allow (B.8).
//! The packing follows bbpPairings' and py4swiss's: each criterion gets
//! enough bits that the sum over a whole matching cannot spill into the
//! criterion above it; the lowest bits are left free for the order in
//! which candidates are generated (D.1-D.3), set by [`super::dutch`].

use std::collections::BTreeMap;

use super::players::{Entrant, Float, Strength};
use crate::matching::Weight;

/// What a player is in the bracket being paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A moved-down player (A.4).
    Mdp,
    /// A player of the bracket's own score group.
    Resident,
    /// A player of the next score group: in the graph so that the
    /// downfloaters chosen leave the next bracket pairable (C.7).
    Lower,
}

/// A player as a vertex of the bracket's graph.
#[derive(Debug, Clone, Copy)]
pub struct Vertex<'p> {
    pub entrant: &'p Entrant,
    pub role: Role,
    /// The player's index in the round's ranking.
    pub global: usize,
}

impl Vertex<'_> {
    fn score(&self) -> i64 {
        i64::from(self.entrant.points_tenths)
    }
}

#[derive(Debug)]
pub struct Bracket<'p> {
    /// The MDPs, the residents, then the next score group, each in
    /// ranking order: an index below another ranks above it.
    pub vertices: Vec<Vertex<'p>>,
    pub mdps: usize,
    pub residents: usize,
    /// At least one round (two rounds) played: the float criteria apply.
    one_round_played: bool,
    two_rounds_played: bool,
    /// The penultimate pairing bracket, or the collapsed last one (A.9).
    pub collapsed: bool,
    /// The last bracket: no score group below it.
    pub last: bool,
    /// The lowest resident's score.
    min_score: i64,
    /// Bits to count the residents (and the next group's players).
    bracket_bits: u32,
    lower_bits: u32,
    /// Score differences (A.8) get a field of bits each, the larger
    /// difference above: where each one's field starts, and their width.
    difference_offset: BTreeMap<i64, u32>,
    difference_bits: u32,
}

fn bit_length(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

impl<'p> Bracket<'p> {
    pub fn new(
        mdps: &[Vertex<'p>],
        residents: &[Vertex<'p>],
        lower: &[Vertex<'p>],
        rounds_played: usize,
        collapsed: bool,
    ) -> Self {
        let min_score = residents.last().expect("a bracket has residents").score();
        // Every score difference a pair or a downfloat of this bracket can
        // make, counted (A.8: a downfloater's against one point below the
        // lowest resident).
        let mut differences: Vec<i64> = mdps
            .iter()
            .chain(residents)
            .map(|v| v.score() - min_score + 10)
            .collect();
        for mdp in mdps {
            let distinct: std::collections::BTreeSet<i64> =
                residents.iter().map(|r| mdp.score() - r.score()).collect();
            differences.extend(distinct);
        }
        for (i, resident) in residents.iter().enumerate() {
            let distinct: std::collections::BTreeSet<i64> = residents[i + 1..]
                .iter()
                .map(|r| resident.score() - r.score())
                .collect();
            differences.extend(distinct);
        }
        let mut counts = BTreeMap::new();
        for d in differences {
            *counts.entry(d).or_insert(0usize) += 1;
        }
        let mut difference_offset = BTreeMap::new();
        let mut difference_bits = 0;
        for (difference, count) in counts {
            difference_offset.insert(difference, difference_bits);
            difference_bits += bit_length(count);
        }
        let vertices = mdps
            .iter()
            .map(|v| Vertex {
                role: Role::Mdp,
                ..*v
            })
            .chain(residents.iter().map(|v| Vertex {
                role: Role::Resident,
                ..*v
            }))
            .chain(lower.iter().map(|v| Vertex {
                role: Role::Lower,
                ..*v
            }))
            .collect();
        Bracket {
            vertices,
            mdps: mdps.len(),
            residents: residents.len(),
            one_round_played: rounds_played >= 1,
            two_rounds_played: rounds_played >= 2,
            collapsed,
            last: lower.is_empty(),
            min_score,
            bracket_bits: bit_length(residents.len()),
            lower_bits: bit_length(lower.len()),
            difference_offset,
            difference_bits,
        }
    }

    pub fn bracket_bits(&self) -> u32 {
        self.bracket_bits
    }

    /// Whether the choice of the unpaired player matters (C.2 in the
    /// last brackets): the bye's bits lead the weight.
    fn bye_matters(&self) -> bool {
        self.collapsed || self.last
    }

    /// The widths of the criteria's fields, C.5 first.
    fn field_widths(&self) -> [u32; 15] {
        let bb = self.bracket_bits;
        let sd = self.difference_bits;
        let one = |bits| if self.one_round_played { bits } else { 0 };
        let two = |bits| if self.two_rounds_played { bits } else { 0 };
        [
            bb,
            sd,
            if self.bye_matters() {
                0
            } else {
                self.lower_bits + sd
            },
            bb,
            bb,
            bb,
            bb,
            one(bb),
            two(bb),
            one(bb),
            two(bb),
            one(sd),
            one(sd),
            two(sd),
            two(sd),
        ]
    }

    /// The bits free below the criteria for the order of generation.
    pub fn order_bits(&self) -> u32 {
        3 * self.bracket_bits + 1
    }

    /// The width of the largest weight: the bye's two bits, the criteria,
    /// the order's bits, and one more (every edge weight is below
    /// `2^width - 1`, the weight that forces a pair).
    pub fn weight_width(&self) -> u32 {
        2 + self.field_widths().iter().sum::<u32>() + self.order_bits() + 1
    }

    /// The weight that forces a pair: all ones, above every other edge.
    pub fn forcing_weight<W: Weight>(&self) -> W {
        W::from_u64(1).shl(self.weight_width()) - W::from_u64(1)
    }

    fn offset(&self, difference: i64) -> u32 {
        self.difference_offset[&difference]
    }

    /// A downfloater's field for `v` (A.8: against one point below the
    /// bracket's lowest score).
    fn float_offset(&self, v: &Vertex) -> u32 {
        self.offset(v.score() - self.min_score + 10)
    }

    /// Where each criterion's field starts, C.5 first, and above them the
    /// bye's: the fields are stacked from the order's bits up, C.19
    /// lowest.
    fn field_offsets(&self) -> ([u32; 15], u32) {
        let widths = self.field_widths();
        let mut offsets = [0; 15];
        let mut offset = self.order_bits();
        for (field, width) in widths.iter().enumerate().rev() {
            offsets[field] = offset;
            offset += width;
        }
        (offsets, offset)
    }

    /// The weight of pairing `a` with `b`, `a` ranked above `b`; zero when
    /// the absolute criteria forbid the pair (`allowed` false).
    pub fn weight<W: Weight>(&self, a: &Vertex, b: &Vertex, allowed: bool) -> W {
        if !allowed {
            return W::ZERO;
        }
        let (fields, bye) = self.field_offsets();
        let [
            c5,
            c6,
            c7,
            c8,
            c9,
            c10,
            c11,
            c12,
            c13,
            c14,
            c15,
            c16,
            c17,
            c18,
            c19,
        ] = fields;
        let mut w = Packed::<W>::default();
        let (pa, pb) = (a.entrant, b.entrant);
        if self.bye_matters() {
            w.add(
                bye,
                1 + u64::from(pa.bye_received) + u64::from(pb.bye_received),
            );
        }
        // A pair with a player of the next score group is not a pair of
        // this bracket: only C.7 counts it. (`b` ranks below `a`: if either
        // is of the next group, `b` is.)
        let pair = b.role != Role::Lower;
        let (sa, sb) = (a.score(), b.score());
        let down_a = |float: Float| float == Float::Down && sa <= sb;
        let upfloat_b = |float: Float| float == Float::Up && sa > sb;
        let pair_difference = || self.difference_offset.get(&(sa - sb)).copied().unwrap_or(0);

        // C.5: the number of pairs.
        w.add(c5, u64::from(pair));
        // C.6: the PSD. Each player paired avoids a downfloat's score
        // difference; the pair makes its own.
        if pair {
            w.add_bit(c6 + self.float_offset(a));
            w.add_bit(c6 + self.float_offset(b));
            w.sub_bit(c6 + pair_difference());
        }
        // C.7: pairs and PSD of the next bracket (not in the PPB or after).
        if !self.bye_matters() {
            if b.role == Role::Lower {
                w.add_bit(c7 + self.difference_bits);
            }
            for v in [a, b] {
                if v.role != Role::Lower {
                    w.add_bit(c7 + self.float_offset(v));
                }
            }
        }
        if pair {
            // C.8: topscorers (or their opponents) beyond a colour
            // difference of two; C.9: the same colour a third time.
            let topscorer = pa.topscorer || pb.topscorer;
            let same_side = pa.preference.colour == pb.preference.colour;
            let beyond = pa.colour_difference.abs() > 1 && pb.colour_difference.abs() > 1;
            w.add(c8, u64::from(!(topscorer && beyond && same_side)));
            let doubles = pa.colour_double && pb.colour_double;
            w.add(c9, u64::from(!(topscorer && doubles && same_side)));
            // C.10: colour preferences; C.11: strong ones.
            let conflict = same_side && pa.preference.colour.is_some();
            w.add(c10, u64::from(!conflict));
            let strong = [pa, pb]
                .iter()
                .all(|p| p.preference.strength >= Strength::Strong);
            w.add(c11, u64::from(!(strong && conflict)));
        }
        // C.12-C.15: the same float as one and two rounds before: a
        // downfloat avoided by pairing (only the higher player of a pair
        // can float down, and an unpaired one does), an upfloat made by it.
        // C.16-C.19: the score differences of those repeated floats.
        let repeated_downfloat = |w: &mut Packed<W>, field: u32, ago: usize| {
            if pa.floats[ago] == Float::Down {
                w.add_bit(field + self.float_offset(a));
                if sa > sb {
                    w.sub_bit(field + pair_difference());
                }
            }
            if pb.floats[ago] == Float::Down {
                w.add_bit(field + self.float_offset(b));
            }
        };
        if pair && self.one_round_played {
            w.add(
                c12,
                u64::from(down_a(pa.floats[0])) + u64::from(pb.floats[0] == Float::Down),
            );
            w.add(
                c14,
                u64::from(down_a(pa.floats[1])) + u64::from(pb.floats[1] == Float::Down),
            );
            repeated_downfloat(&mut w, c16, 0);
            if upfloat_b(pb.floats[0]) {
                w.sub_bit(c17 + self.float_offset(a));
            }
        }
        if pair && self.two_rounds_played {
            w.add(c13, u64::from(!upfloat_b(pb.floats[0])));
            w.add(c15, u64::from(!upfloat_b(pb.floats[1])));
            repeated_downfloat(&mut w, c18, 1);
            if upfloat_b(pb.floats[1]) {
                w.sub_bit(c19 + self.float_offset(a));
            }
        }
        w.value()
    }
}

/// A weight built field by field, where a criterion may count against a
/// pair: the additions and subtractions kept apart, so that no field
/// borrows from the one above until the end.
struct Packed<W> {
    plus: W,
    minus: W,
}

impl<W: Weight> Default for Packed<W> {
    fn default() -> Self {
        Packed {
            plus: W::ZERO,
            minus: W::ZERO,
        }
    }
}

impl<W: Weight> Packed<W> {
    /// Adds `value` to the field starting at bit `offset`.
    fn add(&mut self, offset: u32, value: u64) {
        if value > 0 {
            self.plus = self.plus + W::from_u64(value).shl(offset);
        }
    }

    fn add_bit(&mut self, bit: u32) {
        self.plus = self.plus + W::from_u64(1).shl(bit);
    }

    fn sub_bit(&mut self, bit: u32) {
        self.minus = self.minus + W::from_u64(1).shl(bit);
    }

    fn value(self) -> W {
        self.plus - self.minus
    }
}
