//! TRF-2016 files written by another pairing program (bbpPairings' own
//! tests, `tests/data/bbp/`, Apache-2.0) read whole: each player's points
//! are the sum of their rounds' results, each game is on both players'
//! lines with opposite colours, and a report written and read again is
//! the report read.

use kingpost_pairing::trf::{Colour, Report, RoundResult};

const FILES: &[(&str, &str)] = &[
    ("dutch_2025_C5", include_str!("data/bbp/dutch_2025_C5.trf")),
    ("dutch_2025_C9", include_str!("data/bbp/dutch_2025_C9.trf")),
    ("issue_7", include_str!("data/bbp/issue_7.trf")),
    ("issue_15", include_str!("data/bbp/issue_15.trf")),
];

#[test]
fn every_players_points_are_the_sum_of_their_results() {
    for (name, text) in FILES {
        let report = Report::parse(text).unwrap();
        assert!(!report.players.is_empty(), "{name}: players read");
        for player in &report.players {
            let sum: u32 = player.rounds.iter().map(|r| r.result.points_tenths()).sum();
            assert_eq!(
                sum, player.points_tenths,
                "{name}: player {}",
                player.number
            );
        }
    }
}

#[test]
fn every_game_is_on_both_players_lines() {
    for (name, text) in FILES {
        let report = Report::parse(text).unwrap();
        let by_number = |n: u32| report.players.iter().find(|p| p.number == n);
        let mut games = 0;
        for player in &report.players {
            for (round, entry) in player.rounds.iter().enumerate() {
                let Some(opponent) = entry.opponent else {
                    continue;
                };
                let theirs = by_number(opponent)
                    .and_then(|o| o.rounds.get(round))
                    .unwrap_or_else(|| panic!("{name}: {opponent} has no round {}", round + 1));
                assert_eq!(
                    theirs.opponent,
                    Some(player.number),
                    "{name}: round {}",
                    round + 1
                );
                let opposite = match entry.colour {
                    Some(Colour::White) => Some(Colour::Black),
                    Some(Colour::Black) => Some(Colour::White),
                    None => None,
                };
                assert_eq!(theirs.colour, opposite, "{name}: round {}", round + 1);
                if entry.result != RoundResult::NotPlayed {
                    games += 1;
                }
            }
        }
        assert!(games > 0, "{name}: games read");
    }
}

#[test]
fn a_report_written_reads_back_the_same() {
    for (name, text) in FILES {
        let report = Report::parse(text).unwrap();
        let again = Report::parse(&report.write()).unwrap();
        assert_eq!(again, report, "{name}");
    }
}

#[test]
fn the_rounds_line_is_read() {
    let report = Report::parse(FILES[2].1).unwrap();
    assert_eq!(report.rounds, Some(15));
    assert_eq!(report.players.len(), 60);
    assert_eq!(report.players[0].rating, Some(2720));
    assert_eq!(report.players[0].name, "Test0001 Player0001");
}
