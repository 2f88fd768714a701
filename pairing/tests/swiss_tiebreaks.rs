//! C.07's tie-breaks on crosstables worked by hand (the sums are in the
//! comments), with the pairing-allocated bye counted for its player as a
//! game against a dummy opponent of the player's own score.

mod common;

use kingpost_pairing::{
    swiss::tiebreaks::{Standing, TieBreak, standings},
    trf::{Colour, Player, Report, RoundEntry, RoundResult},
};

/// A report from each player's rounds: (opponent, result) with the
/// opponent 0 for the pairing-allocated bye.
fn report(lines: &[&[(u32, RoundResult)]]) -> Report {
    Report {
        players: lines
            .iter()
            .zip(1..)
            .map(|(rounds, number)| Player {
                number,
                sex: None,
                title: None,
                name: format!("P{number}"),
                rating: None,
                federation: None,
                fide_id: None,
                birth_date: None,
                points_tenths: rounds.iter().map(|r| r.1.points_tenths()).sum(),
                rank: None,
                rounds: rounds
                    .iter()
                    .map(|&(opponent, result)| RoundEntry {
                        opponent: (opponent != 0).then_some(opponent),
                        colour: (opponent != 0).then_some(Colour::White),
                        result,
                    })
                    .collect(),
            })
            .collect(),
        ..Report::default()
    }
}

use RoundResult::{Draw as D, Loss as L, PairingBye as U, Win as W};

/// Five players, three rounds, a bye each round:
/// R1 1-4 1-0, 2-5 ½-½, 3 bye; R2 1-3 1-0, 2-4 1-0, 5 bye;
/// R3 1-2 ½-½, 3-5 1-0, 4 bye. Scores 2.5, 2, 2, 1, 1.5.
fn five() -> Report {
    report(&[
        &[(4, W), (3, W), (2, D)],
        &[(5, D), (4, W), (1, D)],
        &[(0, U), (1, L), (5, W)],
        &[(1, L), (2, L), (0, U)],
        &[(2, D), (0, U), (3, L)],
    ])
}

fn by_number(lines: &[Standing]) -> Vec<(u32, usize, u32, Vec<i64>)> {
    let mut out: Vec<_> = lines
        .iter()
        .map(|s| (s.number, s.place, s.points_tenths, s.values.clone()))
        .collect();
    out.sort();
    out
}

#[test]
fn buchholz_cut_sonneborn_berger_and_progressive_by_hand() {
    let order = [
        TieBreak::Buchholz,
        TieBreak::BuchholzCut1,
        TieBreak::SonnebornBerger,
        TieBreak::Progressive,
    ];
    let lines = standings(&five(), &order);
    // Buchholz: 1: 1+2+2 = 5; 2: 1.5+1+2.5 = 5; 3: own 2 (bye)+2.5+1.5 = 6;
    // 4: 2.5+2+own 1 = 5.5; 5: 2+own 1.5+2 = 5.5.
    // Cut 1, the least value (a pairing-allocated bye is no voluntarily
    // unplayed round, which a cut would take first): 4, 4, 4.5, 4.5, 4.
    // Sonneborn-Berger (hundredths): 1: 1×1+2×1+2×½ = 4; 2: 1.5×½+1×1+2.5×½
    // = 3; 3: 2×1 (bye)+0+1.5×1 = 3.5; 4: 1×1 (bye) = 1; 5: 2×½+1.5×1 = 2.5.
    // Progressive: 1: 1+2+2.5 = 5.5; 2: .5+1.5+2 = 4; 3: 1+1+2 = 4;
    // 4: 0+0+1 = 1; 5: .5+1.5+1.5 = 3.5.
    assert_eq!(
        by_number(&lines),
        [
            (1, 1, 25, vec![50, 40, 400, 55]),
            (2, 3, 20, vec![50, 40, 300, 40]),
            (3, 2, 20, vec![60, 45, 350, 40]),
            (4, 5, 10, vec![55, 45, 100, 10]),
            (5, 4, 15, vec![55, 40, 250, 35]),
        ]
    );
    // In the order asked: cut 1 ranks 3 above 2 (level on points) at once.
    let order = [TieBreak::BuchholzCut1, TieBreak::Buchholz];
    let places: Vec<(u32, usize)> = standings(&five(), &order)
        .iter()
        .map(|s| (s.number, s.place))
        .collect();
    assert_eq!(places, [(1, 1), (3, 2), (2, 3), (5, 4), (4, 5)]);
}

// C.07 Article 6 (direct encounter): among players still level, the
// games between them; the value is how many of them it ranks below.
#[test]
fn the_direct_encounter_ranks_by_the_games_between_the_players_level() {
    // 2 and 3 are level on 2 points and never met: they share second place.
    let lines = standings(&five(), &[TieBreak::DirectEncounter]);
    let places: Vec<(u32, usize)> = lines.iter().map(|s| (s.number, s.place)).collect();
    assert_eq!(places, [(1, 1), (2, 2), (3, 2), (5, 4), (4, 5)]);
    // Four players, two rounds: R1 1-2 1-0, 3-4 1-0; R2 3-1 1-0, 2-4 1-0.
    // 1 and 2 are level on a point, and met: 1 beat 2.
    let four = report(&[
        &[(2, W), (3, L)],
        &[(1, L), (4, W)],
        &[(4, W), (1, W)],
        &[(3, L), (2, L)],
    ]);
    let lines = standings(&four, &[TieBreak::DirectEncounter]);
    assert_eq!(
        by_number(&lines),
        [
            (1, 2, 10, vec![1]),
            (2, 3, 10, vec![0]),
            (3, 1, 20, vec![0]),
            (4, 4, 0, vec![0]),
        ]
    );
    // Six players, three rounds: R1 1-2 1-0, 3-4 1-0, 5-6 1-0; R2 1-3 1-0,
    // 2-5 1-0, 4-6 1-0; R3 1-6 0-1, 2-4 1-0, 3-5 1-0. 1, 2 and 3 are level
    // on 2 points, 2 and 3 never met: 1 beat both, 2 points, more than
    // either could have had by winning the game they did not play (1), so
    // 1 is first; 2 and 3 share the next place. 4, 5 and 6 are level on a
    // point, 4 and 5 never met: each beat 6, and might have beaten the
    // other (2 points): nobody is ranked apart, not even 6.
    let six = report(&[
        &[(2, W), (3, W), (6, L)],
        &[(1, L), (5, W), (4, W)],
        &[(4, W), (1, L), (5, W)],
        &[(3, L), (6, W), (2, L)],
        &[(6, W), (2, L), (3, L)],
        &[(5, L), (4, L), (1, W)],
    ]);
    let lines = standings(&six, &[TieBreak::DirectEncounter]);
    assert_eq!(
        by_number(&lines),
        [
            (1, 1, 20, vec![2]),
            (2, 2, 20, vec![0]),
            (3, 2, 20, vec![0]),
            (4, 4, 10, vec![0]),
            (5, 4, 10, vec![0]),
            (6, 4, 10, vec![0]),
        ]
    );
}

/// Parses a value of FIDE's TieBreakServer ("73.5", "48.25") in
/// hundredths.
fn hundredths(text: &str) -> i64 {
    let (whole, part) = text.split_once('.').unwrap_or((text, ""));
    let part = format!("{part:0<2}");
    whole.parse::<i64>().unwrap() * 100 + part[..2].parse::<i64>().unwrap()
}

// C.07 (the Tie-Break Regulations in force since August 2024) as FIDE's
// own program computes them: the TieBreakServer of FIDE's Technical
// Commission (github.com/TEC-FIDE/TieBreakServer) reading the same TRF
// files, its answers recorded beside them by `scripts/swiss-tiebreaks.py`
// in two orders (direct encounter last, and first): every player's
// Buchholz, Buchholz cut 1, Sonneborn-Berger and progressive score, and
// the rank all of them and the direct encounter give, on tournaments with
// byes, half-point byes, absences, forfeits and withdrawals.
#[test]
fn simulated_tournaments_rank_as_fides_tiebreak_server_ranks_them() {
    let mut compared = 0;
    for tournament in common::simulated_in("KINGPOST_TIEBREAK_RECORDS") {
        for suffix in ["tiebreaks.tsv", "tiebreaks-de.tsv"] {
            let path = std::path::Path::new(&tournament.name).with_extension(suffix);
            let Ok(recorded) = std::fs::read_to_string(&path) else {
                continue;
            };
            compare_with_tiebreak_server(&tournament.report, &recorded, &path);
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} files compared");
}

/// Checks our standings against TieBreakServer's tab-separated answer:
/// `StartNo Rank PTS` and the tie-breaks in the order they were asked.
fn compare_with_tiebreak_server(report: &Report, recorded: &str, path: &std::path::Path) {
    let mut lines = recorded.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(
        header[..3],
        ["StartNo", "Rank", "PTS"],
        "{}",
        path.display()
    );
    let order: Vec<TieBreak> = header[3..]
        .iter()
        .map(|name| match *name {
            "BH" => TieBreak::Buchholz,
            "BH/C1" => TieBreak::BuchholzCut1,
            "SB" => TieBreak::SonnebornBerger,
            "PS" => TieBreak::Progressive,
            "DE" => TieBreak::DirectEncounter,
            other => panic!("{other}: not one of ours"),
        })
        .collect();
    let ours = standings(report, &order);
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let number: u32 = fields[0].parse().unwrap();
        let mine = ours.iter().find(|s| s.number == number).unwrap();
        // In hundredths; the direct encounter's value is each program's own
        // (ours the players it ranks below, theirs a rank): the places
        // compare it.
        let kept = |tie_break: TieBreak| tie_break != TieBreak::DirectEncounter;
        let values: Vec<i64> = mine
            .values
            .iter()
            .zip(&order)
            .filter(|(_, t)| kept(**t))
            .map(|(&v, &t)| {
                if t == TieBreak::SonnebornBerger {
                    v
                } else {
                    v * 10
                }
            })
            .collect();
        let theirs: Vec<i64> = fields[3..]
            .iter()
            .zip(&order)
            .filter(|(_, t)| kept(**t))
            .map(|(f, _)| hundredths(f))
            .collect();
        assert_eq!(
            (mine.place, i64::from(mine.points_tenths) * 10, values),
            (fields[1].parse().unwrap(), hundredths(fields[2]), theirs),
            "{}, player {number}",
            path.display()
        );
    }
}
