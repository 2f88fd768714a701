//! Round robins: the Berger tables against their published copies, and
//! standings with ICCF's tie-breaks on crosstables worked by hand.

use std::collections::{BTreeMap, BTreeSet};

use kingpost_api::domain::tournament::{
    berger::{self, Pairing},
    standings::{Game, Outcome, standings},
};

/// The published tables: players -> rounds of (white, black).
fn published() -> BTreeMap<usize, Vec<Vec<(usize, usize)>>> {
    let text = include_str!("../data/berger/tables.txt");
    let mut tables: BTreeMap<usize, Vec<Vec<(usize, usize)>>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (head, pairs) = line.split_once(": ").unwrap();
        let (players, round) = head.split_once(' ').unwrap();
        let round: usize = round.parse().unwrap();
        let rounds = tables.entry(players.parse().unwrap()).or_default();
        assert_eq!(rounds.len() + 1, round, "{line}");
        rounds.push(
            pairs
                .split(' ')
                .map(|pair| {
                    let (w, b) = pair.split_once('-').unwrap();
                    (w.parse().unwrap(), b.parse().unwrap())
                })
                .collect(),
        );
    }
    tables
}

fn as_pairs(games: &[Pairing]) -> Vec<(usize, usize)> {
    games.iter().map(|g| (g.white, g.black)).collect()
}

// FIDE C.05 Annex 1: for an even number, the table itself, boards in
// order; for the odd number below it, the same without the games of the
// highest number, who is the bye.
#[test]
fn berger_tables_match_the_published_ones_from_3_to_14_players() {
    let tables = published();
    assert_eq!(
        tables.keys().copied().collect::<Vec<_>>(),
        [4, 6, 8, 10, 12, 14]
    );
    for (&n, rounds) in &tables {
        let even = berger::single(n);
        assert_eq!(even.len(), rounds.len());
        for (round, published) in even.iter().zip(rounds) {
            assert_eq!(&as_pairs(&round.games), published, "{n} players");
            assert_eq!(round.bye, None);
        }
        let odd = berger::single(n - 1);
        for (round, published) in odd.iter().zip(rounds) {
            let without_bye: Vec<(usize, usize)> = published
                .iter()
                .copied()
                .filter(|&(w, b)| w != n && b != n)
                .collect();
            assert_eq!(as_pairs(&round.games), without_bye, "{} players", n - 1);
            let (w, b) = published.iter().find(|&&(w, b)| w == n || b == n).unwrap();
            assert_eq!(round.bye, Some(if *w == n { *b } else { *w }));
        }
    }
}

// Beyond the published copies, up to the 17 a tournament may hold: each
// pair meets once, each player at most once a round, colours within one.
#[test]
fn every_round_robin_up_to_17_pairs_everyone_once_with_balanced_colours() {
    for players in 3..=17 {
        let rounds = berger::single(players);
        let mut met = BTreeSet::new();
        let mut whites = vec![0i32; players + 1];
        for round in &rounds {
            let mut seated = BTreeSet::new();
            for g in &round.games {
                assert!(g.white <= players && g.black <= players && g.white != g.black);
                assert!(seated.insert(g.white) && seated.insert(g.black));
                assert!(met.insert((g.white.min(g.black), g.white.max(g.black))));
                whites[g.white] += 1;
            }
            assert_eq!(seated.len() + usize::from(round.bye.is_some()), players);
        }
        assert_eq!(met.len(), players * (players - 1) / 2, "{players}");
        let games_each = players as i32 - 1;
        for w in &whites[1..] {
            assert!((2 * w - games_each).abs() <= 1, "{players}: {whites:?}");
        }
        let double = berger::double(players);
        assert_eq!(double.len(), 2 * rounds.len());
        for (first, second) in rounds.iter().zip(&double[rounds.len()..]) {
            for (a, b) in first.games.iter().zip(&second.games) {
                assert_eq!((a.white, a.black), (b.black, b.white));
            }
        }
    }
}

use Outcome::{BlackWon, Draw, WhiteWon};

fn game(white: usize, black: usize, outcome: Option<Outcome>) -> Game {
    Game {
        white,
        black,
        outcome,
    }
}

/// (player, place, points, wins, Sonneborn-Berger) in the order given.
fn table(
    rows: &[kingpost_api::domain::tournament::standings::Standing],
) -> Vec<(usize, usize, f64, u32, f64)> {
    rows.iter()
        .map(|r| {
            (
                r.player,
                r.place,
                f64::from(r.half_points) / 2.0,
                r.wins,
                f64::from(r.sonneborn_berger_quarters) / 4.0,
            )
        })
        .collect()
}

// A 2 (1 win: B, draws C and D), B 2 (2 wins: C, D): level on points, B
// ahead on wins. C 1.5 (draw A, win D), D 0.5.
#[test]
fn the_number_of_wins_breaks_a_tie_first() {
    let (a, b, c, d) = (0, 1, 2, 3);
    let games = [
        game(a, b, Some(WhiteWon)),
        game(a, c, Some(Draw)),
        game(a, d, Some(Draw)),
        game(b, c, Some(WhiteWon)),
        game(b, d, Some(WhiteWon)),
        game(c, d, Some(WhiteWon)),
    ];
    let rows = standings(4, &games, &BTreeSet::new());
    // SB: A = B's 2 + half of C's 1.5 and D's 0.5 = 3; B = C's 1.5 + D's
    // 0.5 = 2; C = half of A's 2 + D's 0.5 = 1.5; D = half of A's 2 = 1.
    assert_eq!(
        table(&rows),
        [
            (b, 1, 2.0, 2, 2.0),
            (a, 2, 2.0, 1, 3.0),
            (c, 3, 1.5, 1, 1.5),
            (d, 4, 0.5, 0, 1.0)
        ]
    );
}

// Five players (each sits out one round). B, D and E have 2.5 points and
// two wins each; Sonneborn-Berger: B beat C (1.5) and E (2.5) and drew A
// (1): 4.5; E beat C and D (2.5) and drew A: 4.5; D beat A (1) and B (2.5)
// and drew C: 4.25. B and E stay level: B won their game, so B is first.
#[test]
fn sonneborn_berger_then_the_direct_encounter() {
    let (a, b, c, d, e) = (0, 1, 2, 3, 4);
    let games = [
        game(a, b, Some(Draw)),
        game(a, c, Some(BlackWon)),
        game(a, d, Some(BlackWon)),
        game(a, e, Some(Draw)),
        game(b, c, Some(WhiteWon)),
        game(b, d, Some(BlackWon)),
        game(b, e, Some(WhiteWon)),
        game(c, d, Some(Draw)),
        game(c, e, Some(BlackWon)),
        game(d, e, Some(BlackWon)),
    ];
    let rows = standings(5, &games, &BTreeSet::new());
    assert_eq!(
        table(&rows),
        [
            (b, 1, 2.5, 2, 4.5),
            (e, 2, 2.5, 2, 4.5),
            (d, 3, 2.5, 2, 4.25),
            (c, 4, 1.5, 1, 2.25),
            (a, 5, 1.0, 0, 2.5),
        ]
    );
    assert_eq!(
        (rows[0].direct_half_points, rows[1].direct_half_points),
        (2, 0)
    );
}

// A beat B, B beat C, C beat A, all drew D: A, B and C are level on
// everything, their games among them 1-1 each: they share first place.
// Games under way count for nothing yet and are shown as such.
#[test]
fn players_level_on_everything_share_a_place_and_unfinished_games_wait() {
    let (a, b, c, d) = (0, 1, 2, 3);
    let mut games = vec![
        game(a, b, Some(WhiteWon)),
        game(b, c, Some(WhiteWon)),
        game(c, a, Some(WhiteWon)),
        game(a, d, Some(Draw)),
        game(b, d, Some(Draw)),
        game(c, d, Some(Draw)),
    ];
    let rows = standings(4, &games, &BTreeSet::new());
    assert_eq!(
        table(&rows),
        [
            (a, 1, 1.5, 1, 2.25),
            (b, 1, 1.5, 1, 2.25),
            (c, 1, 1.5, 1, 2.25),
            (d, 4, 1.5, 0, 2.25)
        ]
    );
    games[5].outcome = None;
    let rows = standings(4, &games, &BTreeSet::new());
    let of = |p: usize| rows.iter().find(|r| r.player == p).unwrap();
    assert_eq!(
        (of(c).unfinished, of(d).unfinished, of(a).unfinished),
        (1, 1, 0)
    );
    assert_eq!((of(c).half_points, of(d).half_points), (2, 2));
    assert_eq!(of(a).place, 1, "A: 1.5 points, the most with B");
}

// Five players, four games each. D withdrew after one finished game
// (fewer than half): all of D's results are annulled, A's win over D
// among them. C withdrew after two (half or more): C's game against E,
// under way, is lost by forfeit (the one against D is gone with D's).
#[test]
fn withdrawals_annul_or_forfeit_by_the_half_rule() {
    let (a, b, c, d, e) = (0, 1, 2, 3, 4);
    let games = [
        game(a, b, Some(Draw)),
        game(a, c, Some(BlackWon)),
        game(a, d, Some(WhiteWon)),
        game(a, e, Some(Draw)),
        game(b, c, Some(WhiteWon)),
        game(b, d, None),
        game(b, e, Some(BlackWon)),
        game(c, d, None),
        game(c, e, None),
        game(d, e, None),
    ];
    let withdrawn = BTreeSet::from([c, d]);
    let rows = standings(5, &games, &withdrawn);
    let of = |p: usize| rows.iter().find(|r| r.player == p).unwrap();
    assert!(of(d).annulled && of(d).withdrawn);
    assert!(!of(c).annulled && of(c).withdrawn);
    assert_eq!(of(d).half_points + of(d).finished + of(d).unfinished, 0);
    // E: draw A, beat B, forfeit win over C: 2.5, Sonneborn-Berger half of
    // A's 1 + B's 1.5 + C's 1 = 3. B: draw A, beat C: 1.5 (0.5 + 1). C:
    // beat A: 1 (one win). A: two draws: 1 (no win; 0.75 + 1.25). The
    // games still under way were against D, and are annulled with D's.
    assert_eq!(
        table(&rows),
        [
            (e, 1, 2.5, 2, 3.0),
            (b, 2, 1.5, 1, 1.5),
            (c, 3, 1.0, 1, 1.0),
            (a, 4, 1.0, 0, 2.0),
            (d, 5, 0.0, 0, 0.0),
        ]
    );
    assert!(rows.iter().all(|r| r.unfinished == 0));
}
