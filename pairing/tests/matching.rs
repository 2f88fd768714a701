//! The matching against two oracles: every matching of small random
//! graphs tried (brute force), and networkx's `max_weight_matching`
//! (an independent implementation) on larger ones, its answers recorded
//! by `scripts/networkx-matchings.py` in `tests/data/networkx-matchings.json`.

use kingpost_pairing::{
    graph::{Graph, Solving},
    matching::{Edge, U256, Weight, max_weight_matching},
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The weight of a matching, after checking that it is one: each mate's
/// mate is the vertex, and each matched pair is an edge.
fn weight_of<W: Weight>(mate: &[Option<usize>], edges: &[Edge<W>]) -> W {
    let mut total = W::ZERO;
    for (v, m) in mate.iter().enumerate() {
        if let Some(m) = *m {
            assert_eq!(mate[m], Some(v), "mates are mutual");
            if v < m {
                let edge = edges
                    .iter()
                    .find(|e| (e.a, e.b) == (v, m) || (e.a, e.b) == (m, v))
                    .expect("a matched pair is an edge");
                total = total + edge.weight;
            }
        }
    }
    total
}

/// The largest weight of any matching, by trying every one.
fn best_by_brute_force(n: usize, weights: &[Vec<u128>]) -> u128 {
    fn best(free: &mut Vec<bool>, weights: &[Vec<u128>]) -> u128 {
        let Some(v) = free.iter().position(|&f| f) else {
            return 0;
        };
        free[v] = false;
        // v left single, or matched to each free neighbour in turn.
        let mut top = best(free, weights);
        for w in v + 1..free.len() {
            if free[w] && weights[v][w] > 0 {
                free[w] = false;
                top = top.max(weights[v][w] + best(free, weights));
                free[w] = true;
            }
        }
        free[v] = true;
        top
    }
    best(&mut vec![true; n], weights)
}

fn random_graph(rng: &mut SmallRng, n: usize, density: f64, max: u128) -> Vec<Edge<u128>> {
    let mut edges = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if rng.random_bool(density) {
                edges.push(Edge {
                    a,
                    b,
                    weight: rng.random_range(1..=max),
                });
            }
        }
    }
    edges
}

#[test]
fn small_random_graphs_match_the_best_of_every_matching() {
    let mut rng = SmallRng::seed_from_u64(11);
    for round in 0..3_000 {
        let n = rng.random_range(1..=10);
        let density = [0.2, 0.5, 1.0][round % 3];
        // Few distinct weights make ties, and so blossoms, common.
        let max = [3, 20, 1 << 40][(round / 3) % 3];
        let edges = random_graph(&mut rng, n, density, max);
        let mut weights = vec![vec![0; n]; n];
        for e in &edges {
            weights[e.a][e.b] = e.weight;
            weights[e.b][e.a] = e.weight;
        }
        let mate = max_weight_matching(n, &edges);
        assert_eq!(
            weight_of(&mate, &edges),
            best_by_brute_force(n, &weights),
            "graph {round}: {edges:?}"
        );
    }
}

/// The graphs networkx matched: each one's vertex count, its edges and
/// the best matching's weight, every weight read by `weight`.
fn networkx_cases<W: Weight>(weight: impl Fn(&str) -> W) -> Vec<(usize, Vec<Edge<W>>, W)> {
    let text = include_str!("data/networkx-matchings.json");
    let cases: Vec<serde_json::Value> = serde_json::from_str(text).unwrap();
    assert!(cases.len() >= 100, "the recorded cases are read");
    cases
        .iter()
        .map(|case| {
            let edges = case["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| Edge {
                    a: e[0].as_u64().unwrap() as usize,
                    b: e[1].as_u64().unwrap() as usize,
                    weight: weight(e[2].as_str().unwrap()),
                })
                .collect();
            let n = case["n"].as_u64().unwrap() as usize;
            (n, edges, weight(case["weight"].as_str().unwrap()))
        })
        .collect()
}

#[test]
fn graphs_match_networkx() {
    let cases = networkx_cases(|text| text.parse::<u128>().unwrap());
    for (i, (n, edges, expected)) in cases.iter().enumerate() {
        let mate = max_weight_matching(*n, edges);
        assert_eq!(weight_of(&mate, edges), *expected, "case {i}");
    }
}

/// The same graphs with every weight shifted 120 bits up (to 220 bits, as
/// packed criteria are): with 256-bit weights the best matching's weight
/// is networkx's, shifted the same.
#[test]
fn wide_weights_match_networkx() {
    let cases = networkx_cases(|text| text.parse::<U256>().unwrap() << 120u32);
    for (i, (n, edges, expected)) in cases.iter().enumerate() {
        let mate = max_weight_matching(*n, edges);
        assert_eq!(weight_of(&mate, edges), *expected, "case {i}");
    }
}

/// A graph changed one vertex's edges at a time (raised, lowered,
/// removed, added; as the Dutch system steers its matching) is matched
/// after each change by repairing the last matching: each time a matching
/// of the best weight, checked against every matching (small graphs) and
/// against a matching solved from scratch (larger ones).
#[test]
fn a_graph_changed_vertex_by_vertex_stays_matched_at_its_best() {
    let mut rng = SmallRng::seed_from_u64(29);
    for graph in 0..600 {
        let n = if graph % 2 == 0 {
            rng.random_range(2..=9)
        } else {
            rng.random_range(10..=40)
        };
        let max: u64 = [3, 50, 1 << 30][graph % 3];
        let mut weights = vec![vec![0u64; n]; n];
        let mut g = Graph::<u64>::new(n, Solving::Incremental);
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        for &(a, b) in &pairs {
            if rng.random_bool(0.6) {
                let w = rng.random_range(1..=max);
                weights[a][b] = w;
                weights[b][a] = w;
                g.set_weight(a, b, w);
            }
        }
        g.update();
        for change in 0..12 {
            // Now and then a matched pair is fixed, as the Dutch system
            // fixes each pair it chooses: the matching may stand as it is.
            let v = rng.random_range(0..n);
            let mate = g.mate(v);
            if change % 3 == 2 && mate != v {
                let heavy = max * n as u64;
                for u in 0..n {
                    for (x, y) in [(v, u), (mate, u)] {
                        weights[x][y] = 0;
                        weights[y][x] = 0;
                    }
                }
                weights[v][mate] = heavy;
                weights[mate][v] = heavy;
                g.fix(v, mate, heavy);
            }
            // One or two vertices' edges change at once.
            for _ in 0..rng.random_range(1..=2) {
                let v = rng.random_range(0..n);
                for u in (0..n).filter(|&u| u != v) {
                    if !rng.random_bool(0.5) {
                        continue;
                    }
                    let w = match rng.random_range(0..4) {
                        0 => 0,
                        1 => weights[v][u].saturating_sub(rng.random_range(0..=2)),
                        2 => weights[v][u] + rng.random_range(0..=3),
                        _ => rng.random_range(1..=max),
                    };
                    weights[v][u] = w;
                    weights[u][v] = w;
                    g.set_weight(v, u, w);
                }
            }
            g.update();
            let mate: Vec<Option<usize>> = (0..n)
                .map(|v| Some(g.mate(v)).filter(|&m| m != v))
                .collect();
            let edges: Vec<Edge<u64>> = pairs
                .iter()
                .copied()
                .filter(|&(a, b)| weights[a][b] > 0)
                .map(|(a, b)| Edge {
                    a,
                    b,
                    weight: weights[a][b],
                })
                .collect();
            let ours = weight_of(&mate, &edges);
            let best = if n < 10 {
                let wide: Vec<Vec<u128>> = weights
                    .iter()
                    .map(|row| row.iter().map(|&w| u128::from(w)).collect())
                    .collect();
                best_by_brute_force(n, &wide) as u64
            } else {
                weight_of(&max_weight_matching(n, &edges), &edges)
            };
            assert_eq!(ours, best, "graph {graph}, change {change}");
        }
    }
}
