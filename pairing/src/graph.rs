//! A complete graph whose edge weights change between matchings: the
//! Dutch system steers one matching, edge by edge, towards the pairing
//! it prefers, reading the matching after each step.

use crate::matching::{Edge, Weight, max_weight_matching};

#[derive(Debug, Clone)]
pub struct Graph<W> {
    n: usize,
    /// Row-major `n × n`, symmetric; zero is no edge.
    weights: Vec<W>,
    /// Each vertex's mate, itself when unmatched.
    mates: Vec<usize>,
}

impl<W: Weight> Graph<W> {
    /// `n` vertices and no edges.
    pub fn new(n: usize) -> Self {
        Graph {
            n,
            weights: vec![W::ZERO; n * n],
            mates: (0..n).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn weight(&self, a: usize, b: usize) -> W {
        self.weights[a * self.n + b]
    }

    pub fn set_weight(&mut self, a: usize, b: usize, weight: W) {
        self.weights[a * self.n + b] = weight;
        self.weights[b * self.n + a] = weight;
    }

    /// Removes every edge of `a`.
    pub fn isolate(&mut self, a: usize) {
        for b in 0..self.n {
            self.set_weight(a, b, W::ZERO);
        }
    }

    /// A vertex's mate in the matching last computed; itself if unmatched.
    pub fn mate(&self, a: usize) -> usize {
        self.mates[a]
    }

    /// Computes a maximum-weight matching under the current weights.
    pub fn update(&mut self) {
        let mut edges = Vec::new();
        for a in 0..self.n {
            for b in a + 1..self.n {
                let weight = self.weight(a, b);
                if weight > W::ZERO {
                    edges.push(Edge { a, b, weight });
                }
            }
        }
        let mates = max_weight_matching(self.n, &edges);
        for (a, mate) in mates.into_iter().enumerate() {
            self.mates[a] = mate.unwrap_or(a);
        }
    }
}
