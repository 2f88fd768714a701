//! FIDE's Dutch system (Handbook C.04.3, the rules in force until 31
//! January 2026, as bbpPairings and py4swiss implement them): a round is
//! paired bracket by bracket from the top score down. Each bracket is a
//! maximum-weight matching whose weights pack the quality criteria
//! ([`super::bracket`]); among the matchings the criteria rank equal, the
//! one the rules would generate first (transpositions and exchanges,
//! D.1-D.3) is reached by nudging the weights in the free low bits and
//! fixing one pair at a time. A bracket whose downfloaters would leave
//! the rest of the round unpairable (the completion check, C.4) is paired
//! again as the penultimate bracket over everyone below it (A.9).

use super::{
    bracket::{Bracket, Role, Vertex},
    colours::{colour_of_higher, publishing_order},
    players::{Entrant, Strength, entrants},
};
use crate::{
    graph::{Graph, Solving},
    matching::{U256, Weight, Wide},
    trf::{Colour, Report},
};

/// A round's pairs as published: (white, black), black none for the
/// pairing-allocated bye.
pub type Pairs = Vec<(u32, Option<u32>)>;

/// No pairing of the round meets the absolute criteria (C.1-C.3): the
/// tournament cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpairable;

impl std::fmt::Display for Unpairable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no pairing of the round avoids a second game between two players, a second bye, and two players who must both have the same colour")
    }
}

impl std::error::Error for Unpairable {}

/// Pairs the next round of the tournament `report` holds.
pub fn pair_next_round(report: &Report) -> Result<Pairs, Unpairable> {
    pair_next_round_with(report, Solving::Incremental)
}

/// [`pair_next_round`], each matching found as `solving` says (the
/// pairing is the same: the rules choose one candidate however the
/// matchings are found).
pub fn pair_next_round_with(report: &Report, solving: Solving) -> Result<Pairs, Unpairable> {
    let rounds_played = report
        .players
        .iter()
        .map(|p| p.rounds.len())
        .min()
        .unwrap_or(0);
    let mut players = entrants(report);
    players.sort_by_key(|e| std::cmp::Reverse((e.points_tenths, std::cmp::Reverse(e.number))));
    let first_colour = report.first_colour.unwrap_or(Colour::White);
    let mut validity = Validity::new(&players, solving);
    if !validity.completable() {
        return Err(Unpairable);
    }
    let vertices: Vec<Vertex> = players
        .iter()
        .enumerate()
        .map(|(global, entrant)| Vertex {
            entrant,
            role: Role::Resident,
            global,
        })
        .collect();
    // The score groups, top down (A.3).
    let mut groups: Vec<Vec<Vertex>> = Vec::new();
    for v in vertices {
        match groups.last_mut() {
            Some(group) if group[0].entrant.points_tenths == v.entrant.points_tenths => {
                group.push(v)
            }
            _ => groups.push(vec![v]),
        }
    }
    let mut pairs = Vec::new();
    let mut mdps: Vec<Vertex> = Vec::new();
    let mut collapsed = false;
    let mut index = 0;
    while index < groups.len() {
        let lower = groups.get(index + 1).map_or(&[][..], |g| &g[..]);
        let bracket = Bracket::new(&mdps, &groups[index], lower, rounds_played, collapsed);
        match pair_bracket(&bracket, &mut validity, first_colour, solving) {
            None => {
                // A.9: everyone below becomes the collapsed last group.
                let rest: Vec<Vertex> = groups.drain(index + 1..).flatten().collect();
                groups.push(rest);
                collapsed = true;
            }
            Some(bracket_pairs) => {
                let paired = |n: u32| bracket_pairs.iter().any(|&(w, b)| w == n || b == Some(n));
                mdps = mdps
                    .iter()
                    .chain(&groups[index])
                    .filter(|v| !paired(v.entrant.number))
                    .copied()
                    .collect();
                pairs.extend(bracket_pairs);
                index += 1;
            }
        }
    }
    publishing_order(&players, &mut pairs);
    Ok(pairs)
}

/// The absolute criteria between two players: never twice the same
/// opponent (C.1), and no two non-topscorers with the same absolute
/// colour preference (C.3).
fn allowed(a: &Entrant, b: &Entrant) -> bool {
    let absolute = |e: &Entrant| e.preference.strength == Strength::Absolute;
    !a.opponents.contains(&b.number)
        && (a.topscorer
            || b.topscorer
            || a.preference.colour != b.preference.colour
            || !absolute(a)
            || !absolute(b))
}

/// Whether the pairs fixed so far leave a pairing of the whole round
/// that meets the absolute criteria: a perfect matching of the players
/// (and the bye, when their number is odd: C.2, not to one who had it).
struct Validity {
    graph: Graph<u64>,
}

impl Validity {
    fn new(players: &[Entrant], solving: Solving) -> Self {
        let n = players.len();
        let mut graph = Graph::new(n + n % 2, solving);
        for (i, a) in players.iter().enumerate() {
            for (j, b) in players.iter().enumerate().skip(i + 1) {
                graph.set_weight(i, j, u64::from(allowed(a, b)));
            }
            if n % 2 == 1 {
                graph.set_weight(i, n, u64::from(!a.bye_received));
            }
        }
        Validity { graph }
    }

    fn fix(&mut self, a: usize, b: usize) {
        self.graph.fix(a, b, 1);
    }

    fn completable(&mut self) -> bool {
        self.graph.update();
        (0..self.graph.len()).all(|v| self.graph.mate(v) != v)
    }
}

/// Pairs one bracket with weights wide enough for it; none when the
/// downfloaters it leaves make the round unpairable.
fn pair_bracket(
    bracket: &Bracket,
    validity: &mut Validity,
    first_colour: Colour,
    solving: Solving,
) -> Option<Pairs> {
    // The matching needs three bits clear above the largest weight.
    let bits = bracket.weight_width() + 3;
    if bits <= 64 {
        BracketPairer::<u64>::new(bracket, validity, solving).pair(first_colour)
    } else if bits <= 128 {
        BracketPairer::<u128>::new(bracket, validity, solving).pair(first_colour)
    } else if bits <= 192 {
        BracketPairer::<Wide<3>>::new(bracket, validity, solving).pair(first_colour)
    } else if bits <= 256 {
        BracketPairer::<U256>::new(bracket, validity, solving).pair(first_colour)
    } else if bits <= 1024 {
        BracketPairer::<Wide<16>>::new(bracket, validity, solving).pair(first_colour)
    } else if bits <= 4096 {
        BracketPairer::<Wide<64>>::new(bracket, validity, solving).pair(first_colour)
    } else {
        assert!(bits <= 16384, "a bracket's weights fit in 16,384 bits");
        BracketPairer::<Wide<256>>::new(bracket, validity, solving).pair(first_colour)
    }
}

/// One bracket's pairing: the graph of its MDPs, residents and the next
/// score group, steered to the candidate the rules choose.
struct BracketPairer<'b, 'p, W> {
    bracket: &'b Bracket<'p>,
    validity: &'b mut Validity,
    graph: Graph<W>,
}

impl<'b, 'p, W: Weight> BracketPairer<'b, 'p, W> {
    fn new(bracket: &'b Bracket<'p>, validity: &'b mut Validity, solving: Solving) -> Self {
        let vertices = &bracket.vertices;
        let mut graph = Graph::new(vertices.len(), solving);
        for (i, a) in vertices.iter().enumerate() {
            for (j, b) in vertices.iter().enumerate().skip(i + 1) {
                let weight = bracket.weight(a, b, allowed(a.entrant, b.entrant));
                graph.set_weight(i, j, weight);
            }
        }
        graph.update();
        BracketPairer {
            bracket,
            validity,
            graph,
        }
    }

    fn role(&self, v: usize) -> Role {
        self.bracket.vertices[v].role
    }

    /// Whether `v`'s mate (itself when unmatched) is a resident.
    fn resident_match(&self, v: usize) -> bool {
        self.role(self.graph.mate(v)) == Role::Resident
    }

    /// In S1: paired with a resident ranked below.
    fn in_s1(&self, v: usize) -> bool {
        let mate = self.graph.mate(v);
        v < mate && self.role(mate) == Role::Resident
    }

    /// In S2: paired with a player ranked above, not at all, or out of
    /// the bracket.
    fn in_s2(&self, v: usize) -> bool {
        let mate = self.graph.mate(v);
        v >= mate || self.role(mate) == Role::Lower
    }

    /// Adds `value` to the weights of `v`'s edges to `others` (edges
    /// there are: an absent edge stays absent), `value + step` to the
    /// next, and so on.
    fn nudge(&mut self, v: usize, others: &[usize], value: i64, step: i64) {
        let mut value = value;
        for &u in others {
            let weight = self.graph.weight(v, u);
            if weight > W::ZERO {
                let magnitude = W::from_u64(value.unsigned_abs());
                let nudged = if value >= 0 {
                    weight + magnitude
                } else {
                    weight - magnitude
                };
                self.graph.set_weight(v, u, nudged);
            }
            value += step;
        }
    }

    fn remove(&mut self, v: usize, others: &[usize]) {
        for &u in others {
            self.graph.set_weight(v, u, W::ZERO);
        }
    }

    /// Fixes the pair `a`-`b`, here and in the completion check.
    fn fix(&mut self, a: usize, b: usize) {
        self.graph.fix(a, b, self.bracket.forcing_weight::<W>());
        let vertices = &self.bracket.vertices;
        self.validity.fix(vertices[a].global, vertices[b].global);
    }

    fn pair(mut self, first_colour: Colour) -> Option<Pairs> {
        let b = self.bracket;
        let residents: Vec<usize> = (b.mdps..b.mdps + b.residents).collect();
        let s1_mdps = self.mdps_in_s1(&residents);
        let s2_mdps = self.pair_in_order(&s1_mdps, &residents);
        let remainder: Vec<usize> = residents
            .iter()
            .copied()
            .filter(|r| !s2_mdps.contains(r))
            .collect();
        let (s1, s2) = self.exchange(&remainder);
        self.pair_in_order(&s1, &s2);
        // C.4: the downfloaters must leave the round completable (the
        // last brackets' own choice of the bye is in their weights).
        if !(b.collapsed || b.last || self.validity.completable()) {
            return None;
        }
        Some(self.pairs(first_colour))
    }

    /// D.3: the MDPs that can be paired without a worse candidate join
    /// S1, the lowest BSNs first; each one's pairing is then kept.
    fn mdps_in_s1(&mut self, residents: &[usize]) -> Vec<usize> {
        let n = self.bracket.vertices.len() as i64;
        let mut s1 = Vec::new();
        for mdp in 0..self.bracket.mdps {
            if !self.resident_match(mdp) {
                self.nudge(mdp, residents, 1, 0);
                self.graph.update();
            }
            if self.resident_match(mdp) {
                s1.push(mdp);
                self.nudge(mdp, residents, n, 0);
            }
        }
        s1
    }

    /// D.1: each of S1 in turn takes the player of S2 of lowest BSN that
    /// leaves the best candidate; the pair is fixed. Returns the players
    /// of S2 taken, in S1's order.
    fn pair_in_order(&mut self, s1: &[usize], s2: &[usize]) -> Vec<usize> {
        let reversed: Vec<usize> = s2.iter().rev().copied().collect();
        let mut taken = Vec::new();
        for &v in s1 {
            self.nudge(v, &reversed, 0, 1);
            self.graph.update();
            let mate = self.graph.mate(v);
            taken.push(mate);
            self.fix(v, mate);
        }
        taken
    }

    /// D.2, the exchanges of a homogeneous bracket or remainder: the
    /// fewest (a), the smallest difference of the BSNs exchanged (b), the
    /// highest BSNs leaving S1 (c), the lowest leaving S2 (d). Returns the
    /// new S1 and S2, their pairs left to [`Self::pair_in_order`].
    fn exchange(&mut self, remainder: &[usize]) -> (Vec<usize>, Vec<usize>) {
        let pairs = remainder
            .iter()
            .filter(|&&r| self.resident_match(r))
            .count()
            / 2;
        let (s1, s2) = remainder.split_at(pairs);
        let bb = self.bracket.bracket_bits();
        for (i, &r) in remainder.iter().enumerate() {
            let value = ((i64::from(i < pairs) << (2 * bb)) - i as i64) << 1;
            self.nudge(r, &remainder[i + 1..], value, 0);
        }
        self.graph.update();
        let exchanges = s1.iter().filter(|&&r| self.in_s2(r)).count();

        // (c): from the bottom of S1 up, each one that can leave S1
        // without a worse candidate does.
        let mut left = exchanges;
        for i in (0..s1.len()).rev() {
            if left == 0 {
                break;
            }
            let r = s1[i];
            let below: Vec<usize> = s1[i + 1..].iter().chain(s2).copied().collect();
            let exchanged = self.in_s2(r);
            if !exchanged {
                self.nudge(r, &below, -1, 0);
                self.graph.update();
            }
            if self.in_s2(r) {
                left -= 1;
                self.remove(r, &below);
            }
            if !exchanged {
                self.nudge(r, &below, 1, 0);
            }
        }
        // (d): from the top of S2 down, likewise into S1.
        let b = self.bracket;
        let lower: Vec<usize> = (b.mdps + b.residents..b.vertices.len()).collect();
        let mut left = exchanges;
        for i in 0..s2.len() {
            if left == 0 {
                break;
            }
            let r = s2[i];
            let above: Vec<usize> = s1.iter().chain(&s2[..i]).copied().collect();
            let below = &s2[i + 1..];
            let exchanged = self.in_s1(r);
            if !exchanged {
                self.nudge(r, below, 1, 0);
                self.graph.update();
            }
            if !self.in_s2(r) {
                left -= 1;
                let out: Vec<usize> = above.iter().chain(&lower).copied().collect();
                self.remove(r, &out);
            }
            if !exchanged {
                self.nudge(r, below, -1, 0);
            }
        }
        let new_s1: Vec<usize> = remainder
            .iter()
            .copied()
            .filter(|&r| self.in_s1(r))
            .collect();
        let new_s2: Vec<usize> = remainder
            .iter()
            .copied()
            .filter(|&r| self.in_s2(r))
            .collect();
        // Within S1 and within S2 no one is paired.
        for group in [&new_s1, &new_s2] {
            for (i, &r) in group.iter().enumerate() {
                self.remove(r, &group[i + 1..]);
            }
        }
        (new_s1, new_s2)
    }

    /// The bracket's pairs as the matching holds them, with colours (E),
    /// and the bye when this is the last bracket.
    fn pairs(&self, first_colour: Colour) -> Pairs {
        let vertices = &self.bracket.vertices;
        let mut out = Vec::new();
        for v in 0..vertices.len() {
            let mate = self.graph.mate(v);
            if self.role(v) == Role::Lower || self.role(mate) == Role::Lower {
                continue;
            }
            let (a, c) = (vertices[v].entrant, vertices[mate].entrant);
            if v < mate {
                out.push(match colour_of_higher(a, c, first_colour) {
                    Colour::White => (a.number, Some(c.number)),
                    Colour::Black => (c.number, Some(a.number)),
                });
            } else if v == mate && self.bracket.last {
                out.push((a.number, None));
            }
        }
        out
    }
}
