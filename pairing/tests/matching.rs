//! The matching against two oracles: every matching of small random
//! graphs tried (brute force), and networkx's `max_weight_matching`
//! (an independent implementation) on larger ones, its answers recorded
//! by `scripts/networkx-matchings.py` in `tests/data/networkx-matchings.json`.

use kingpost_pairing::matching::{Edge, U256, Weight, max_weight_matching};
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
