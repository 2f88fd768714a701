//! A maximum-weight matching in a general graph: Edmonds' blossom
//! algorithm with Gabow's and Galil's primal-dual bookkeeping, O(n³)
//! (Galil, "Efficient algorithms for finding maximum matching in graphs",
//! ACM Computing Surveys 1986; the structure follows Joris van Rantwijk's
//! published description of it).
//!
//! Weights are unsigned integers of any width ([`Weight`]): the pairing
//! criteria are packed into wide ones. Every dual variable stays a
//! non-negative integer because only maximum weight is asked for (never
//! maximum cardinality at any cost: callers that need it put it in the
//! weights' top bits), so no signed or fractional arithmetic is needed.
//! A weight must leave the top three bits of its type clear: the duals of
//! vertices grow up to twice the largest weight, and a slack adds two.

use std::ops::{Add, Sub};

/// An unsigned integer edge weight.
pub trait Weight: Copy + Ord + Add<Output = Self> + Sub<Output = Self> {
    const ZERO: Self;
    /// The width of the type.
    const BITS: u32;
    fn from_u64(value: u64) -> Self;
    /// The value shifted `bits` to the left (bits shifted out are lost).
    fn shl(self, bits: u32) -> Self;
    /// Half of an even value.
    fn half(self) -> Self;
    /// Twice the value.
    fn double(self) -> Self {
        self + self
    }
}

macro_rules! primitive_weight {
    ($t:ty) => {
        impl Weight for $t {
            const ZERO: Self = 0;
            const BITS: u32 = <$t>::BITS;
            fn from_u64(value: u64) -> Self {
                value.into()
            }
            fn shl(self, bits: u32) -> Self {
                self.checked_shl(bits).unwrap_or(0)
            }
            fn half(self) -> Self {
                self / 2
            }
        }
    };
}
primitive_weight!(u64);
primitive_weight!(u128);

/// Wide weights: room for every criterion of FIDE's Dutch system packed
/// into one, for brackets of thousands of players with many scores.
pub type Wide<const WORDS: usize> = bnum::BUint<WORDS>;
pub type U256 = Wide<4>;

impl<const WORDS: usize> Weight for Wide<WORDS> {
    const ZERO: Self = Self::ZERO;
    const BITS: u32 = Self::BITS;
    fn from_u64(value: u64) -> Self {
        Self::from(value)
    }
    fn shl(self, bits: u32) -> Self {
        self.checked_shl(bits).unwrap_or(Self::ZERO)
    }
    fn half(self) -> Self {
        self >> 1u32
    }
}

/// An edge between two vertices, and its weight. A weight of zero adds
/// nothing to a matching, so such an edge is never chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge<W> {
    pub a: usize,
    pub b: usize,
    pub weight: W,
}

/// A matching of the largest total weight among `vertices` vertices:
/// for each vertex, its mate. Edges must join two different vertices
/// below `vertices`, each pair once.
pub fn max_weight_matching<W: Weight>(vertices: usize, edges: &[Edge<W>]) -> Vec<Option<usize>> {
    for edge in edges {
        assert!(
            edge.a < vertices && edge.b < vertices && edge.a != edge.b,
            "an edge must join two different vertices of the graph"
        );
    }
    let edges: Vec<Edge<W>> = edges
        .iter()
        .copied()
        .filter(|e| e.weight > W::ZERO)
        .collect();
    if edges.is_empty() {
        return vec![None; vertices];
    }
    let mut solver = Solver::new(vertices, edges);
    solver.start();
    solver.run();
    (0..vertices).map(|v| solver.mate_of(v)).collect()
}

/// Labels of the alternating trees: none, S (outer), T (inner); `BREADCRUMB`
/// marks S-blossoms on a path being scanned for a common ancestor.
/// An edge's place in a row when it is in none (its weight is zero).
const ABSENT: u32 = u32::MAX;
const FREE: u8 = 0;
const S: u8 = 1;
const T: u8 = 2;
const BREADCRUMB: u8 = 4;

/// The algorithm's state, kept between solutions so that a change of
/// some vertices' edges is repaired rather than solved again. Vertices
/// are `0..n`, blossoms `n..2n`; an edge `k` has the endpoints `2k` (its
/// `a`) and `2k + 1` (its `b`), so that `p ^ 1` is the other end of the
/// edge through `p`. An edge of weight zero is absent.
///
/// Duals are kept doubled for vertices (`dual[v] = 2 u(v)`) and as they
/// are for blossoms (`z(b)`), so that they stay integers.
#[derive(Debug, Clone)]
pub(crate) struct Solver<W> {
    n: usize,
    edges: Vec<Edge<W>>,
    /// The vertex at each endpoint.
    endpoint: Vec<usize>,
    /// For each vertex, the remote endpoints of its edges of positive
    /// weight (an edge of weight zero is none), in no particular order.
    neighbours: Vec<Vec<usize>>,
    /// Beside `neighbours`, each edge's other vertex and twice its weight
    /// (what the duals are compared with): a
    /// stage scans a vertex's edges in order through memory, where the
    /// edge list would be visited at random (the scans are most of the
    /// work, and a dense graph's list is larger than the caches); and
    /// only the edges there are, as pairs fixed and removed leave a
    /// steered graph sparse.
    row_vertex: Vec<Vec<u32>>,
    row_double: Vec<Vec<W>>,
    /// Where each edge sits in its ends' rows ([`ABSENT`] for none).
    row_at: Vec<[u32; 2]>,
    /// For each vertex, the remote endpoint of its matched edge.
    mate: Vec<Option<usize>>,
    /// For each top-level blossom (and vertex), its label.
    label: Vec<u8>,
    /// The endpoint through which a labelled blossom got its label.
    label_end: Vec<Option<usize>>,
    /// The top-level blossom each vertex is in.
    in_blossom: Vec<usize>,
    parent: Vec<Option<usize>>,
    /// A blossom's sub-blossoms, in order round it, from its base.
    children: Vec<Vec<usize>>,
    base: Vec<Option<usize>>,
    /// The endpoints joining a blossom's consecutive children.
    child_ends: Vec<Vec<usize>>,
    /// The least-slack edge to a different S-blossom.
    best_edge: Vec<Option<usize>>,
    /// A non-trivial S-blossom's least-slack edges to each other S-blossom.
    blossom_best_edges: Vec<Option<Vec<usize>>>,
    /// [`Self::add_blossom`]'s scratch: the least-slack edge to each
    /// S-blossom, and its slack (all none between calls).
    best_to: Vec<Option<(usize, W)>>,
    unused_blossoms: Vec<usize>,
    dual: Vec<W>,
    queue: Vec<usize>,
}

impl<W: Weight> Solver<W> {
    pub(crate) fn new(n: usize, edges: Vec<Edge<W>>) -> Self {
        let mut endpoint = Vec::with_capacity(2 * edges.len());
        for edge in &edges {
            endpoint.push(edge.a);
            endpoint.push(edge.b);
        }
        let mut solver = Solver {
            n,
            endpoint,
            neighbours: vec![Vec::new(); n],
            row_vertex: vec![Vec::new(); n],
            row_double: vec![Vec::new(); n],
            row_at: vec![[ABSENT; 2]; edges.len()],
            mate: vec![None; n],
            label: vec![FREE; 2 * n],
            label_end: vec![None; 2 * n],
            in_blossom: (0..n).collect(),
            parent: vec![None; 2 * n],
            children: vec![Vec::new(); 2 * n],
            base: (0..n)
                .map(Some)
                .chain(std::iter::repeat_n(None, n))
                .collect(),
            child_ends: vec![Vec::new(); 2 * n],
            best_edge: vec![None; 2 * n],
            blossom_best_edges: vec![None; 2 * n],
            best_to: vec![None; 2 * n],
            unused_blossoms: (n..2 * n).rev().collect(),
            dual: vec![W::ZERO; 2 * n],
            queue: Vec::new(),
            edges,
        };
        for k in 0..solver.edges.len() {
            if solver.edges[k].weight > W::ZERO {
                solver.add_to_rows(k);
            }
        }
        solver
    }

    /// Puts edge `k` in its ends' rows.
    fn add_to_rows(&mut self, k: usize) {
        let Edge { a, b, weight } = self.edges[k];
        for (side, (v, w)) in [(a, b), (b, a)].into_iter().enumerate() {
            self.row_at[k][side] = self.neighbours[v].len() as u32;
            self.neighbours[v].push(2 * k + 1 - side);
            self.row_vertex[v].push(w as u32);
            self.row_double[v].push(weight.double());
        }
    }

    /// Takes edge `k` out of its ends' rows, each row's last edge moved
    /// into its place.
    fn remove_from_rows(&mut self, k: usize) {
        let Edge { a, b, .. } = self.edges[k];
        for (side, v) in [a, b].into_iter().enumerate() {
            let at = std::mem::replace(&mut self.row_at[k][side], ABSENT) as usize;
            self.neighbours[v].swap_remove(at);
            self.row_vertex[v].swap_remove(at);
            self.row_double[v].swap_remove(at);
            if let Some(&moved) = self.neighbours[v].get(at) {
                // The endpoint names the side: `p` is the far end of `v`.
                let moved_side = usize::from(moved % 2 == 0);
                self.row_at[moved / 2][moved_side] = at as u32;
            }
        }
    }

    /// A warm start: each vertex's dual the weight of its heaviest edge
    /// (every edge's slack is then at least zero), and matched greedily
    /// along the edges that are the heaviest of both their ends (those of
    /// zero slack). [`Self::run`] takes it from there as from a repair.
    /// The usual start (every dual the largest weight, nothing matched)
    /// leaves one stage to each pair, each growing trees over the whole
    /// graph; this one leaves a stage to each pair it did not match.
    pub(crate) fn start(&mut self) {
        let n = self.n;
        self.mate.fill(None);
        self.in_blossom = (0..n).collect();
        self.parent.fill(None);
        for b in n..2 * n {
            self.children[b].clear();
            self.child_ends[b].clear();
            self.base[b] = None;
        }
        self.unused_blossoms = (n..2 * n).rev().collect();
        for v in 0..n {
            self.dual[v] = self.row_double[v]
                .iter()
                .copied()
                .max()
                .map_or(W::ZERO, W::half);
        }
        self.dual[n..].fill(W::ZERO);
        for v in 0..n {
            if self.mate[v].is_some() {
                continue;
            }
            let heaviest = self.dual[v];
            let tight = (0..self.neighbours[v].len()).find(|&i| {
                let w = self.row_vertex[v][i] as usize;
                self.row_double[v][i] == heaviest.double()
                    && self.dual[w] == heaviest
                    && self.mate[w].is_none()
            });
            if let Some(i) = tight {
                let p = self.neighbours[v][i];
                self.mate[v] = Some(p);
                self.mate[self.endpoint[p]] = Some(p ^ 1);
            }
        }
    }

    pub(crate) fn mate_of(&self, v: usize) -> Option<usize> {
        self.mate[v].map(|p| self.endpoint[p])
    }

    pub(crate) fn weight(&self, k: usize) -> W {
        self.edges[k].weight
    }

    /// Sets edge `k`'s weight; [`Self::repair`] must then be called for
    /// one of its ends before [`Self::run`].
    pub(crate) fn set_weight(&mut self, k: usize, weight: W) {
        let was = self.edges[k].weight;
        self.edges[k].weight = weight;
        match (was > W::ZERO, weight > W::ZERO) {
            (false, true) => self.add_to_rows(k),
            (true, false) => self.remove_from_rows(k),
            (true, true) => {
                let Edge { a, b, .. } = self.edges[k];
                let [at_a, at_b] = self.row_at[k];
                self.row_double[a][at_a as usize] = weight.double();
                self.row_double[b][at_b as usize] = weight.double();
            }
            (false, false) => {}
        }
    }

    /// Restores the duals' feasibility and complementary slackness but
    /// for free vertices of positive dual, after the weights of edges of
    /// each vertex of `changed` changed (any way): its blossoms are
    /// undone, each dual moved onto its vertices, and matched edges left
    /// slack by that unmatched; its dual is set to the least that covers
    /// its edges, and it stays matched if that leaves its matched edge
    /// tight (the matching may still be the best: a pair fixed, or a
    /// steer the matching already follows, costs no stage), unmatched
    /// otherwise. [`Self::run`] then finds the optimum again, in a few
    /// stages when few vertices changed.
    pub(crate) fn repair(&mut self, changed: &[usize]) {
        for &v in changed {
            while self.in_blossom[v] != v {
                self.dissolve(self.in_blossom[v]);
            }
        }
        for &v in changed {
            let mut need = W::ZERO;
            for (&w, &doubled) in self.row_vertex[v].iter().zip(&self.row_double[v]) {
                let other = self.dual[w as usize];
                if doubled > other {
                    need = need.max(doubled - other);
                }
            }
            self.dual[v] = need;
            if let Some(p) = self.mate[v] {
                let weight = self.edges[p / 2].weight;
                let tight =
                    weight > W::ZERO && weight.double() == need + self.dual[self.endpoint[p]];
                if !tight {
                    self.unmatch(v);
                }
            }
        }
    }

    fn unmatch(&mut self, v: usize) {
        if let Some(p) = self.mate[v].take() {
            self.mate[self.endpoint[p]] = None;
        }
    }

    /// Undoes top-level blossom `b` with its dual moved onto its vertices
    /// (each edge inside keeps its slack; an edge leaving it gains); the
    /// base's matched edge, now slack, is unmatched.
    fn dissolve(&mut self, b: usize) {
        let z = self.dual[b];
        let base = self.base[b].expect("a blossom has a base");
        for leaf in self.leaves(b) {
            self.dual[leaf] = self.dual[leaf] + z;
        }
        self.dual[b] = W::ZERO;
        self.expand_blossom(b, true);
        if z > W::ZERO {
            self.unmatch(base);
        }
    }

    /// Twice an edge's slack under the duals, as the duals count it:
    /// `dual(a) + dual(b) - 2 weight`, never negative.
    fn slack(&self, k: usize) -> W {
        let e = &self.edges[k];
        self.dual[e.a] + self.dual[e.b] - e.weight.double()
    }

    fn leaves(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![b];
        while let Some(b) = stack.pop() {
            if b < self.n {
                out.push(b);
            } else {
                stack.extend(self.children[b].iter().rev());
            }
        }
        out
    }

    fn top_label(&self, v: usize) -> u8 {
        self.label[self.in_blossom[v]]
    }

    /// Labels the top-level blossom of `w` with `t` through endpoint `p`;
    /// a T-blossom's mate becomes an S-blossom in turn.
    fn assign_label(&mut self, w: usize, t: u8, p: Option<usize>) {
        let b = self.in_blossom[w];
        debug_assert!(self.label[w] == FREE && self.label[b] == FREE);
        self.label[w] = t;
        self.label[b] = t;
        self.label_end[w] = p;
        self.label_end[b] = p;
        self.best_edge[w] = None;
        self.best_edge[b] = None;
        if t == S {
            let leaves = self.leaves(b);
            self.queue.extend(leaves);
        } else {
            let base = self.base[b].expect("a labelled blossom has a base");
            let mate = self.mate[base].expect("a T-blossom's base is matched");
            self.assign_label(self.endpoint[mate], S, Some(mate ^ 1));
        }
    }

    /// Traces back from `v` and `w` (both in S-blossoms) to find the base
    /// of a new blossom, or `None` when they lie in different trees (an
    /// augmenting path).
    fn scan_blossom(&mut self, v: usize, w: usize) -> Option<usize> {
        let mut path = Vec::new();
        let mut base = None;
        let (mut v, mut w) = (Some(v), Some(w));
        while let Some(x) = v {
            let b = self.in_blossom[x];
            if self.label[b] & BREADCRUMB != 0 {
                base = self.base[b];
                break;
            }
            debug_assert_eq!(self.label[b], S);
            path.push(b);
            self.label[b] = S | BREADCRUMB;
            v = match self.label_end[b] {
                None => None,
                Some(p) => {
                    let t = self.in_blossom[self.endpoint[p]];
                    debug_assert_eq!(self.label[t], T);
                    let q = self.label_end[t].expect("a T-blossom has its label's end");
                    Some(self.endpoint[q])
                }
            };
            if w.is_some() {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = S;
        }
        base
    }

    /// Makes a new blossom of the cycle through edge `k` whose base is
    /// `base`: an S-blossom, its least-slack edges gathered from its parts.
    fn add_blossom(&mut self, base: usize, k: usize) {
        let Edge { a: v, b: w, .. } = self.edges[k];
        let bb = self.in_blossom[base];
        let mut bv = self.in_blossom[v];
        let mut bw = self.in_blossom[w];
        let b = self.unused_blossoms.pop().expect("at most n blossoms");
        self.base[b] = Some(base);
        self.parent[b] = None;
        self.parent[bb] = Some(b);
        let mut path = Vec::new();
        let mut ends = Vec::new();
        while bv != bb {
            self.parent[bv] = Some(b);
            path.push(bv);
            let p = self.label_end[bv].expect("a blossom on the path has its label's end");
            ends.push(p);
            bv = self.in_blossom[self.endpoint[p]];
        }
        path.push(bb);
        path.reverse();
        ends.reverse();
        ends.push(2 * k);
        while bw != bb {
            self.parent[bw] = Some(b);
            path.push(bw);
            let p = self.label_end[bw].expect("a blossom on the path has its label's end");
            ends.push(p ^ 1);
            bw = self.in_blossom[self.endpoint[p]];
        }
        debug_assert_eq!(self.label[bb], S);
        self.label[b] = S;
        self.label_end[b] = self.label_end[bb];
        self.dual[b] = W::ZERO;
        for leaf in self.leaves_of(&path) {
            if self.top_label(leaf) == T {
                // A T-vertex joining an S-blossom is scanned as S now.
                self.queue.push(leaf);
            }
            self.in_blossom[leaf] = b;
        }
        // The least-slack edge from the new blossom to each S-blossom:
        // from the children's lists, or a trivial child's own row.
        let mut best_to = std::mem::take(&mut self.best_to);
        let mut reached = Vec::new();
        for &child in &path {
            match self.blossom_best_edges[child].take() {
                Some(list) => {
                    for k in list {
                        let Edge { a: i, b: j, .. } = self.edges[k];
                        let j = if self.in_blossom[j] == b { i } else { j };
                        if self.leads_to_other_s(b, j) {
                            let slack = self.slack(k);
                            self.consider_best_to(k, j, slack, &mut best_to, &mut reached);
                        }
                    }
                }
                None => {
                    for leaf in self.leaves(child) {
                        for i in 0..self.neighbours[leaf].len() {
                            let w = self.row_vertex[leaf][i] as usize;
                            if self.leads_to_other_s(b, w) {
                                let slack =
                                    self.dual[leaf] + self.dual[w] - self.row_double[leaf][i];
                                let k = self.neighbours[leaf][i] / 2;
                                self.consider_best_to(k, w, slack, &mut best_to, &mut reached);
                            }
                        }
                    }
                }
            }
            self.best_edge[child] = None;
        }
        let mut best: Option<(usize, W)> = None;
        let mut list = Vec::with_capacity(reached.len());
        for bj in reached {
            let (k, slack) = best_to[bj].take().expect("a reached blossom has its edge");
            if best.is_none_or(|(_, least)| slack < least) {
                best = Some((k, slack));
            }
            list.push(k);
        }
        self.best_to = best_to;
        self.best_edge[b] = best.map(|(k, _)| k);
        self.blossom_best_edges[b] = Some(list);
        self.children[b] = path;
        self.child_ends[b] = ends;
    }

    /// Whether vertex `j` is in an S-blossom other than `b` (an edge to
    /// it from `b` has a slack of its own: one inside `b` may not).
    fn leads_to_other_s(&self, b: usize, j: usize) -> bool {
        let bj = self.in_blossom[j];
        bj != b && self.label[bj] == S
    }

    /// Keeps edge `k` (of `slack`) to `j`, in another S-blossom, in
    /// `best_to` if it is the least slack to that blossom so far.
    fn consider_best_to(
        &self,
        k: usize,
        j: usize,
        slack: W,
        best_to: &mut [Option<(usize, W)>],
        reached: &mut Vec<usize>,
    ) {
        let bj = self.in_blossom[j];
        match best_to[bj] {
            None => {
                best_to[bj] = Some((k, slack));
                reached.push(bj);
            }
            Some((_, least)) if slack < least => best_to[bj] = Some((k, slack)),
            Some(_) => {}
        }
    }

    fn leaves_of(&self, blossoms: &[usize]) -> Vec<usize> {
        blossoms.iter().flat_map(|&b| self.leaves(b)).collect()
    }

    /// The index of `j` (which may be negative or past the end) round a
    /// blossom of `len` children.
    fn round(j: isize, len: usize) -> usize {
        j.rem_euclid(len as isize) as usize
    }

    /// Undoes blossom `b`: its children become top-level blossoms. During
    /// a stage a T-blossom's children are relabelled along the path that
    /// gave it its label; at the end of a stage (`end_stage`) children
    /// of zero dual are undone too.
    fn expand_blossom(&mut self, b: usize, end_stage: bool) {
        let children = self.children[b].clone();
        for &s in &children {
            self.parent[s] = None;
            if s < self.n {
                self.in_blossom[s] = s;
            } else if end_stage && self.dual[s] == W::ZERO {
                self.expand_blossom(s, end_stage);
            } else {
                for leaf in self.leaves(s) {
                    self.in_blossom[leaf] = s;
                }
            }
        }
        if !end_stage && self.label[b] == T {
            let len = children.len();
            let ends = self.child_ends[b].clone();
            let entered = self.label_end[b].expect("a T-blossom has its label's end");
            let entry_child = self.in_blossom[self.endpoint[entered ^ 1]];
            let start = children
                .iter()
                .position(|&c| c == entry_child)
                .expect("the entry child is a child") as isize;
            // Go round the even-length side, towards the base.
            let (mut j, step, trick): (isize, isize, usize) = if start & 1 == 1 {
                (start - len as isize, 1, 0)
            } else {
                (start, -1, 1)
            };
            let mut p = entered;
            while j != 0 {
                // Relabel the T-sub-blossom.
                self.label[self.endpoint[p ^ 1]] = FREE;
                let q = ends[Self::round(j - trick as isize, len)] ^ trick ^ 1;
                self.label[self.endpoint[q]] = FREE;
                self.assign_label(self.endpoint[p ^ 1], T, Some(p));
                // Step to the next S-sub-blossom, then the next T-one.
                j += step;
                p = ends[Self::round(j - trick as isize, len)] ^ trick;
                j += step;
            }
            // The base T-sub-blossom: labelled without stepping to its mate.
            let bv = children[Self::round(j, len)];
            let entry = self.endpoint[p ^ 1];
            self.label[entry] = T;
            self.label[bv] = T;
            self.label_end[entry] = Some(p);
            self.label_end[bv] = Some(p);
            self.best_edge[bv] = None;
            // The rest, back to the entry child: a sub-blossom reached from
            // an S-vertex outside is labelled T.
            j += step;
            while children[Self::round(j, len)] != entry_child {
                let bv = children[Self::round(j, len)];
                if self.label[bv] == S {
                    j += step;
                    continue;
                }
                if let Some(v) = self.leaves(bv).into_iter().find(|&v| self.label[v] != FREE) {
                    debug_assert_eq!(self.label[v], T);
                    debug_assert_eq!(self.in_blossom[v], bv);
                    self.label[v] = FREE;
                    let base = self.base[bv].expect("a blossom has a base");
                    let mate = self.mate[base].expect("a sub-blossom's base is matched");
                    self.label[self.endpoint[mate]] = FREE;
                    let through = self.label_end[v];
                    self.assign_label(v, T, through);
                }
                j += step;
            }
        }
        self.label[b] = FREE;
        self.label_end[b] = None;
        self.children[b].clear();
        self.child_ends[b].clear();
        self.base[b] = None;
        self.blossom_best_edges[b] = None;
        self.best_edge[b] = None;
        self.unused_blossoms.push(b);
    }

    /// Swaps matched and unmatched edges round blossom `b` so that vertex
    /// `v` becomes its base.
    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.parent[t] != Some(b) {
            t = self.parent[t].expect("v is inside b");
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let len = self.children[b].len();
        let i = self.children[b]
            .iter()
            .position(|&c| c == t)
            .expect("t is a child of b");
        let (mut j, step, trick): (isize, isize, usize) = if i & 1 == 1 {
            (i as isize - len as isize, 1, 0)
        } else {
            (i as isize, -1, 1)
        };
        while j != 0 {
            j += step;
            let t = self.children[b][Self::round(j, len)];
            let p = self.child_ends[b][Self::round(j - trick as isize, len)] ^ trick;
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p]);
            }
            j += step;
            let t = self.children[b][Self::round(j, len)];
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = Some(p ^ 1);
            self.mate[self.endpoint[p ^ 1]] = Some(p);
        }
        self.children[b].rotate_left(i);
        self.child_ends[b].rotate_left(i);
        self.base[b] = self.base[self.children[b][0]];
        debug_assert_eq!(self.base[b], Some(v));
    }

    /// Augments the matching along the path through edge `k` between two
    /// S-vertices of different trees.
    fn augment_matching(&mut self, k: usize) {
        let Edge { a: v, b: w, .. } = self.edges[k];
        self.augment_side(v, Some(2 * k + 1));
        self.augment_side(w, Some(2 * k));
    }

    /// Swaps matched and unmatched edges on the path from S-vertex `s` up
    /// to its tree's root, `s` taking the remote endpoint `p` as its mate
    /// (none: it is left free, and the root is matched).
    fn augment_side(&mut self, mut s: usize, mut p: Option<usize>) {
        loop {
            let bs = self.in_blossom[s];
            debug_assert_eq!(self.label[bs], S);
            if bs >= self.n {
                self.augment_blossom(bs, s);
            }
            self.mate[s] = p;
            let Some(end) = self.label_end[bs] else {
                break; // the tree's root
            };
            let t = self.endpoint[end];
            let bt = self.in_blossom[t];
            debug_assert_eq!(self.label[bt], T);
            let through = self.label_end[bt].expect("a T-blossom has its label's end");
            s = self.endpoint[through];
            let j = self.endpoint[through ^ 1];
            if bt >= self.n {
                self.augment_blossom(bt, j);
            }
            self.mate[j] = Some(through);
            p = Some(through ^ 1);
        }
    }

    /// Matches S-vertex `v` through edge `k` to `w`, the base-to-be of a
    /// free blossom outside the trees (a free vertex of lower dual).
    fn augment_to_free(&mut self, k: usize, v: usize) {
        let (p_v, p_w) = if self.edges[k].a == v {
            (2 * k, 2 * k + 1)
        } else {
            (2 * k + 1, 2 * k)
        };
        let w = self.endpoint[p_w];
        self.augment_side(v, Some(p_w));
        let bw = self.in_blossom[w];
        if bw >= self.n {
            self.augment_blossom(bw, w);
        }
        self.mate[w] = Some(p_v);
    }

    /// Runs stages until no free vertex has a positive dual: the matching
    /// is then of maximum weight (complementary slackness). A stage grows
    /// alternating trees from the free vertices of the largest dual (all
    /// equal, so every tree's vertices share a parity and an edge between
    /// two S-vertices has an even slack) and ends on an augmenting path;
    /// on the roots' dual reaching zero or the next free vertices'; or on
    /// an S-vertex's dual reaching zero, the path from it to its root then
    /// swapped so that the root is matched and it is free. Were every
    /// free vertex's dual equal at the outset, this would be the usual
    /// algorithm; after [`Self::start`] or [`Self::repair`] they differ,
    /// and the vertices of lower dual join the roots as the stages reach
    /// them.
    pub(crate) fn run(&mut self) {
        let n = self.n;
        loop {
            self.label.fill(FREE);
            self.best_edge.fill(None);
            for b in n..2 * n {
                self.blossom_best_edges[b] = None;
            }
            self.queue.clear();
            let free: Vec<usize> = (0..n)
                .filter(|&v| self.mate[v].is_none() && self.dual[v] > W::ZERO)
                .collect();
            let Some(top) = free.iter().map(|&v| self.dual[v]).max() else {
                break;
            };
            let next = free
                .iter()
                .map(|&v| self.dual[v])
                .filter(|&d| d < top)
                .max();
            let root = free[free
                .iter()
                .position(|&v| self.dual[v] == top)
                .expect("the largest is one of them")];
            for &v in &free {
                if self.dual[v] == top && self.top_label(v) == FREE {
                    self.assign_label(v, S, None);
                }
            }
            self.stage(root, next);
            // S-blossoms whose dual fell to zero are undone between stages.
            for b in n..2 * n {
                if self.parent[b].is_none()
                    && self.base[b].is_some()
                    && self.label[b] == S
                    && self.dual[b] == W::ZERO
                {
                    self.expand_blossom(b, true);
                }
            }
        }
    }

    /// One stage from the roots labelled S (`root` one of them); `next`,
    /// the largest dual of the other free vertices.
    fn stage(&mut self, root: usize, next: Option<W>) {
        let n = self.n;
        loop {
            while let Some(v) = self.queue.pop() {
                debug_assert_eq!(self.top_label(v), S);
                // (No dual changes while the queue is scanned.)
                let dual_v = self.dual[v];
                for i in 0..self.neighbours[v].len() {
                    let w = self.row_vertex[v][i] as usize;
                    // (v's blossom is read each time: an edge may make a
                    // new one round it.)
                    if self.in_blossom[v] == self.in_blossom[w] {
                        continue; // an edge inside a blossom
                    }
                    let p = self.neighbours[v][i];
                    let k = p / 2;
                    // Twice the slack is the duals' sum less twice the
                    // weight: zero when they are equal.
                    let sum = dual_v + self.dual[w];
                    let doubled = self.row_double[v][i];
                    if sum == doubled {
                        match self.top_label(w) {
                            FREE => {
                                let bw = self.in_blossom[w];
                                let base = self.base[bw].expect("a blossom has a base");
                                if self.mate[base].is_none() {
                                    self.augment_to_free(k, v);
                                    return;
                                }
                                self.assign_label(w, T, Some(p ^ 1));
                            }
                            S => match self.scan_blossom(v, w) {
                                Some(base) => self.add_blossom(base, k),
                                None => {
                                    self.augment_matching(k);
                                    return;
                                }
                            },
                            _ if self.label[w] == FREE => {
                                // w is inside a T-blossom but not yet
                                // reached: note how, for its expansion.
                                self.label[w] = T;
                                self.label_end[w] = Some(p ^ 1);
                            }
                            _ => {}
                        }
                    } else if self.top_label(w) == S {
                        let b = self.in_blossom[v];
                        let slack = sum - doubled;
                        if self.best_edge[b].is_none_or(|best| slack < self.slack(best)) {
                            self.best_edge[b] = Some(k);
                        }
                    } else if self.label[w] == FREE {
                        let slack = sum - doubled;
                        if self.best_edge[w].is_none_or(|best| slack < self.slack(best)) {
                            self.best_edge[w] = Some(k);
                        }
                    }
                }
            }
            // No augmenting path with the duals as they are: change them
            // by the least amount that makes another edge usable, undoes a
            // T-blossom, or brings a dual down to zero or to the next
            // free vertices'.
            let mut delta = self.dual[root];
            let mut kind = Delta::RootsDone;
            if let Some(next) = next
                && self.dual[root] - next < delta
            {
                delta = self.dual[root] - next;
                kind = Delta::MoreRoots;
            }
            for v in 0..n {
                if self.top_label(v) == S && self.dual[v] < delta {
                    delta = self.dual[v];
                    kind = Delta::Freed(v);
                }
            }
            for v in 0..n {
                if self.top_label(v) == FREE
                    && let Some(k) = self.best_edge[v]
                {
                    let d = self.slack(k);
                    if d < delta {
                        delta = d;
                        kind = Delta::Edge(k);
                    }
                }
            }
            for b in 0..2 * n {
                if self.parent[b].is_none()
                    && self.label[b] == S
                    && let Some(k) = self.best_edge[b]
                {
                    let d = self.slack(k).half();
                    if d < delta {
                        delta = d;
                        kind = Delta::Edge(k);
                    }
                }
            }
            for b in n..2 * n {
                if self.base[b].is_some()
                    && self.parent[b].is_none()
                    && self.label[b] == T
                    && self.dual[b] < delta
                {
                    delta = self.dual[b];
                    kind = Delta::Expand(b);
                }
            }
            for v in 0..n {
                match self.top_label(v) {
                    S => self.dual[v] = self.dual[v] - delta,
                    T => self.dual[v] = self.dual[v] + delta,
                    _ => {}
                }
            }
            for b in n..2 * n {
                if self.base[b].is_some() && self.parent[b].is_none() {
                    match self.label[b] {
                        S => self.dual[b] = self.dual[b] + delta,
                        T => self.dual[b] = self.dual[b] - delta,
                        _ => {}
                    }
                }
            }
            match kind {
                Delta::RootsDone | Delta::MoreRoots => return,
                Delta::Freed(v) => {
                    self.augment_side(v, None);
                    return;
                }
                Delta::Edge(k) => {
                    let Edge { a, b, .. } = self.edges[k];
                    let from = if self.top_label(a) == S { a } else { b };
                    self.queue.push(from);
                }
                Delta::Expand(b) => self.expand_blossom(b, false),
            }
        }
    }
}

/// What a change of the duals achieves.
enum Delta {
    /// The roots' duals reach zero: they may stay free.
    RootsDone,
    /// The roots' duals reach the next free vertices': they join them.
    MoreRoots,
    /// A matched S-vertex's dual reaches zero: it may be the free one.
    Freed(usize),
    /// An edge becomes usable (from a free vertex, or between S-blossoms).
    Edge(usize),
    /// A T-blossom's dual reaches zero: it is undone.
    Expand(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edges(list: &[(usize, usize, u64)]) -> Vec<Edge<u64>> {
        list.iter()
            .map(|&(a, b, weight)| Edge { a, b, weight })
            .collect()
    }

    #[test]
    fn a_single_edge_is_matched() {
        assert_eq!(
            max_weight_matching(2, &edges(&[(0, 1, 1)])),
            [Some(1), Some(0)]
        );
    }

    #[test]
    fn the_heavier_of_two_touching_edges_wins() {
        let mate = max_weight_matching(3, &edges(&[(0, 1, 2), (1, 2, 3)]));
        assert_eq!(mate, [None, Some(2), Some(1)]);
    }

    #[test]
    fn two_light_edges_beat_one_heavy_one_between_them() {
        let mate = max_weight_matching(4, &edges(&[(0, 1, 5), (1, 2, 11), (2, 3, 5)]));
        assert_eq!(mate, [None, Some(2), Some(1), None]);
        let mate = max_weight_matching(4, &edges(&[(0, 1, 6), (1, 2, 11), (2, 3, 6)]));
        assert_eq!(mate, [Some(1), Some(0), Some(3), Some(2)]);
    }

    #[test]
    fn an_odd_cycle_makes_a_blossom() {
        // A triangle with a tail: the blossom {0, 1, 2} is entered from 3.
        let mate = max_weight_matching(
            5,
            &edges(&[(0, 1, 8), (0, 2, 9), (1, 2, 10), (2, 3, 7), (3, 4, 3)]),
        );
        // 0-1 and 2-3 (15) beat 1-2 and 3-4 (13).
        assert_eq!(mate, [Some(1), Some(0), Some(3), Some(2), None]);
    }
}
