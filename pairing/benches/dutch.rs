//! The Dutch system's pairing time at a large Swiss (issue target: a
//! 1,000-player round under a second).
//!
//! `cargo bench -p kingpost-pairing --bench dutch -- [players] [rounds]`
//! (default 1,000 players, 9 rounds) plays a tournament: each round paired
//! by kingpost's Dutch engine from its TRF, results drawn at random
//! (weighted by rating, seeded). It prints each round's pairing time
//! beside the baseline measured in the same run: one maximum-weight
//! matching over all the players, each pair's weight its C.1
//! admissibility only (the single matching a pairing program that did not
//! rank candidates would compute). Up to 300 players it also pairs each
//! round with every matching solved from scratch, and checks that the
//! pairing is the same.

use std::time::{Duration, Instant};

use kingpost_pairing::{
    graph::Solving,
    matching::{Edge, max_weight_matching},
    swiss::dutch::{pair_next_round, pair_next_round_with},
    trf::{Colour, Player, Report, RoundEntry, RoundResult},
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let players = args.first().copied().unwrap_or(1_000);
    let rounds = args.get(1).copied().unwrap_or(9);
    let mut rng = SmallRng::seed_from_u64(2026);
    let mut report = Report {
        name: Some("bench".to_owned()),
        rounds: Some(rounds as u32),
        players: (1..=players as u32)
            .map(|number| Player {
                number,
                sex: None,
                title: None,
                name: format!("Player {number}"),
                rating: Some(2800 - number * 1600 / players as u32),
                federation: None,
                fide_id: None,
                birth_date: None,
                points_tenths: 0,
                rank: None,
                rounds: Vec::new(),
            })
            .collect(),
        ..Report::default()
    };
    let mut times = Vec::new();
    for round in 1..=rounds {
        let baseline = time(|| baseline_matching(&report));
        let start = Instant::now();
        let pairs = pair_next_round(&report).expect("the round can be paired");
        let took = start.elapsed();
        let scratch = (players <= 300).then(|| {
            let start = Instant::now();
            let again = pair_next_round_with(&report, Solving::FromScratch).unwrap();
            assert_eq!(again, pairs, "round {round}: the same pairing either way");
            format!("; from scratch {:.3} s", start.elapsed().as_secs_f64())
        });
        println!(
            "round {round}: {} pairs in {:.3} s; baseline {:.3} s; ratio {:.2}{}",
            pairs.len(),
            took.as_secs_f64(),
            baseline.as_secs_f64(),
            took.as_secs_f64() / baseline.as_secs_f64(),
            scratch.unwrap_or_default()
        );
        times.push(took);
        play(&mut report, &pairs, &mut rng);
    }
    times.sort();
    println!(
        "{players} players, {rounds} rounds: median {:.3} s, slowest {:.3} s (target < 1 s)",
        times[times.len() / 2].as_secs_f64(),
        times[times.len() - 1].as_secs_f64()
    );
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// One maximum-weight matching of every player, a pair's weight 1 if they
/// have not met.
fn baseline_matching(report: &Report) {
    let n = report.players.len();
    let met = |a: &Player, b: u32| a.rounds.iter().any(|r| r.opponent == Some(b));
    let mut edges = Vec::new();
    for (i, a) in report.players.iter().enumerate() {
        for (j, b) in report.players.iter().enumerate().skip(i + 1) {
            if !met(a, b.number) {
                edges.push(Edge {
                    a: i,
                    b: j,
                    weight: 1u64,
                });
            }
        }
    }
    std::hint::black_box(max_weight_matching(n, &edges));
}

fn play(report: &mut Report, pairs: &[(u32, Option<u32>)], rng: &mut SmallRng) {
    let rating = |report: &Report, n: u32| report.players[n as usize - 1].rating.unwrap_or(1500);
    let mut entries = Vec::new();
    for &(white, black) in pairs {
        let Some(black) = black else {
            entries.push((white, None, None, RoundResult::PairingBye));
            continue;
        };
        let expected = 1.0
            / (1.0
                + 10f64.powf(
                    (f64::from(rating(report, black)) - f64::from(rating(report, white))) / 400.0,
                ));
        let draw = rng.random_bool(0.3);
        let (w, b) = if draw {
            (RoundResult::Draw, RoundResult::Draw)
        } else if rng.random_bool(expected.clamp(0.05, 0.95)) {
            (RoundResult::Win, RoundResult::Loss)
        } else {
            (RoundResult::Loss, RoundResult::Win)
        };
        entries.push((white, Some(black), Some(Colour::White), w));
        entries.push((black, Some(white), Some(Colour::Black), b));
    }
    for (number, opponent, colour, result) in entries {
        let player = &mut report.players[number as usize - 1];
        player.rounds.push(RoundEntry {
            opponent,
            colour,
            result,
        });
        player.points_tenths += result.points_tenths();
    }
}
