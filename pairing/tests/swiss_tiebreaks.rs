//! C.07's tie-breaks on crosstables worked by hand (the sums are in the
//! comments), with the pairing-allocated bye counted for its player as a
//! game against a dummy opponent of the player's own score.

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
    // Cut 1 (the bye's dummy first): 4, 4, 4, 4.5, 4.
    // Sonneborn-Berger (hundredths): 1: 1×1+2×1+2×½ = 4; 2: 1.5×½+1×1+2.5×½
    // = 3; 3: 2×1 (bye)+0+1.5×1 = 3.5; 4: 1×1 (bye) = 1; 5: 2×½+1.5×1 = 2.5.
    // Progressive: 1: 1+2+2.5 = 5.5; 2: .5+1.5+2 = 4; 3: 1+1+2 = 4;
    // 4: 0+0+1 = 1; 5: .5+1.5+1.5 = 3.5.
    assert_eq!(
        by_number(&lines),
        [
            (1, 1, 25, vec![50, 40, 400, 55]),
            (2, 3, 20, vec![50, 40, 300, 40]),
            (3, 2, 20, vec![60, 40, 350, 40]),
            (4, 5, 10, vec![55, 45, 100, 10]),
            (5, 4, 15, vec![55, 40, 250, 35]),
        ]
    );
    // In the order asked: cut 1 leaves 2 and 3 level, Buchholz does not.
    let order = [TieBreak::BuchholzCut1, TieBreak::Buchholz];
    let places: Vec<(u32, usize)> = standings(&five(), &order)
        .iter()
        .map(|s| (s.number, s.place))
        .collect();
    assert_eq!(places, [(1, 1), (3, 2), (2, 3), (5, 4), (4, 5)]);
}

#[test]
fn the_direct_encounter_decides_only_between_players_who_all_met() {
    // 2 and 3 are level on 2 points and never met: they share second place.
    let lines = standings(&five(), &[TieBreak::DirectEncounter]);
    let places: Vec<(u32, usize)> = lines.iter().map(|s| (s.number, s.place)).collect();
    assert_eq!(places, [(1, 1), (2, 2), (3, 2), (5, 4), (4, 5)]);
    // Four players, two rounds: R1 1-2 1-0, 3-4 1-0; R2 3-1 1-0, 2-4 1-0.
    // 1 and 2 are level on a point; 1 beat 2.
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
            (1, 2, 10, vec![10]),
            (2, 3, 10, vec![0]),
            (3, 1, 20, vec![0]),
            (4, 4, 0, vec![0]),
        ]
    );
}
