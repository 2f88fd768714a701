//! A complete graph whose edge weights change between matchings: the
//! Dutch system steers one matching, edge by edge, towards the pairing
//! it prefers, reading the matching after each step. After the first
//! matching, each one repairs the last around the vertices whose edges
//! changed ([`Solver::repair`]) rather than starting again: a few stages
//! instead of one per vertex.

use crate::matching::{Edge, Solver, Weight};

/// How each matching after the first is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solving {
    /// Repaired from the last one around the vertices whose edges changed.
    #[default]
    Incremental,
    /// Solved again from the start: slower; a baseline, and a second
    /// opinion wherever several matchings are equally heavy.
    FromScratch,
}

#[derive(Debug, Clone)]
pub struct Graph<W> {
    n: usize,
    solving: Solving,
    solver: Solver<W>,
    /// Vertices whose edges changed since the last matching.
    changed: Vec<usize>,
    is_changed: Vec<bool>,
    solved: bool,
}

impl<W: Weight> Graph<W> {
    /// `n` vertices and no edges.
    pub fn new(n: usize, solving: Solving) -> Self {
        let mut edges = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for a in 0..n {
            for b in a + 1..n {
                edges.push(Edge {
                    a,
                    b,
                    weight: W::ZERO,
                });
            }
        }
        Graph {
            n,
            solving,
            solver: Solver::new(n, edges),
            changed: Vec::new(),
            is_changed: vec![false; n],
            solved: false,
        }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The index of edge `a`-`b` in the solver's list (row by row of the
    /// upper triangle).
    fn edge(&self, a: usize, b: usize) -> usize {
        let (a, b) = (a.min(b), a.max(b));
        a * (2 * self.n - a - 1) / 2 + (b - a - 1)
    }

    pub fn weight(&self, a: usize, b: usize) -> W {
        if a == b {
            return W::ZERO;
        }
        self.solver.weight(self.edge(a, b))
    }

    /// Sets the weight of edge `a`-`b` (zero removes it); a loop is never
    /// an edge.
    pub fn set_weight(&mut self, a: usize, b: usize, weight: W) {
        if a == b || self.weight(a, b) == weight {
            return;
        }
        self.solver.set_weight(self.edge(a, b), weight);
        if !self.is_changed[a] {
            self.is_changed[a] = true;
            self.changed.push(a);
        }
    }

    /// Removes every edge of `a`.
    pub fn isolate(&mut self, a: usize) {
        for b in 0..self.n {
            self.set_weight(a, b, W::ZERO);
        }
    }

    /// Fixes the pair `a`-`b`: every other edge of both removed, theirs
    /// set to `weight`, so that every matching holds it.
    pub fn fix(&mut self, a: usize, b: usize, weight: W) {
        self.isolate(a);
        self.isolate(b);
        self.set_weight(a, b, weight);
    }

    /// A vertex's mate in the matching last computed; itself if unmatched.
    pub fn mate(&self, a: usize) -> usize {
        self.solver.mate_of(a).unwrap_or(a)
    }

    /// Computes a maximum-weight matching under the current weights.
    pub fn update(&mut self) {
        if self.solved && self.solving == Solving::Incremental {
            self.solver.repair(&self.changed);
        } else {
            self.solver.start();
            self.solved = true;
        }
        for &v in &self.changed {
            self.is_changed[v] = false;
        }
        self.changed.clear();
        self.solver.run();
    }
}
