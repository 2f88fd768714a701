//! Opening names: the ECO code and name of the deepest named position a
//! standard game reached (from the usual array: Chess960 518 too), from the
//! lichess tables shipped in `api/data/openings` (see its README).

use std::{collections::HashMap, sync::LazyLock};

use kingpost_core::{Position, Rules, Start};

use crate::{models::game::GameRow, views::Opening};

const TABLES: [&str; 5] = [
    include_str!("../../data/openings/a.tsv"),
    include_str!("../../data/openings/b.tsv"),
    include_str!("../../data/openings/c.tsv"),
    include_str!("../../data/openings/d.tsv"),
    include_str!("../../data/openings/e.tsv"),
];

/// Each named position by its repetition key: the first line of the tables
/// that reaches it names it.
static NAMED: LazyLock<HashMap<u64, (&'static str, &'static str)>> = LazyLock::new(|| {
    let mut named = HashMap::new();
    for line in TABLES.iter().flat_map(|table| table.lines().skip(1)) {
        let mut fields = line.split('\t');
        let (Some(eco), Some(name), Some(moves)) = (fields.next(), fields.next(), fields.next())
        else {
            panic!("an opening line without its three fields: {line}");
        };
        named.entry(key_after(moves)).or_insert((eco, name));
    }
    named
});

/// The repetition key after a line's moves, played from the usual array.
fn key_after(moves: &str) -> u64 {
    let mut pos = usual_start();
    for san in moves
        .split_whitespace()
        .filter(|token| !token.ends_with('.'))
    {
        let m = pos
            .parse_move(san)
            .unwrap_or_else(|e| panic!("opening line `{moves}`: {san}: {e}"));
        pos.play_unchecked(m);
    }
    pos.repetition_key()
}

fn usual_start() -> Position {
    Position::from_start(Rules::Standard, &Start::Standard).expect("the usual array is a start")
}

/// The key of the usual array under the standard rules: the start a game
/// must have for the tables to name it.
pub fn usual_start_key() -> u64 {
    static KEY: LazyLock<u64> = LazyLock::new(|| usual_start().repetition_key());
    *KEY
}

/// The name of a position, if the tables name it.
pub fn named(key: u64) -> Option<Opening> {
    NAMED.get(&key).map(|&(eco, name)| Opening {
        eco: eco.to_owned(),
        name: name.to_owned(),
    })
}

/// The opening of a game of `rules` that began at `start_key` and stood
/// in `keys` after each move: the last named one; none for another rule
/// set or start.
pub fn of_game(
    rules: Rules,
    start_key: u64,
    keys: impl DoubleEndedIterator<Item = u64>,
) -> Option<Opening> {
    if rules != Rules::Standard || start_key != usual_start_key() {
        return None;
    }
    keys.rev().find_map(named)
}

/// Keeps a game's opening on its row, when it has one.
pub fn record(row: &mut GameRow, opening: Option<Opening>) {
    if let Some(Opening { eco, name }) = opening {
        row.eco = Some(eco);
        row.opening = Some(name);
    }
}

/// Names a game anew after a move that reached `key`, if the position has
/// a name: a later named position replaces an earlier one.
pub fn after_move(row: &mut GameRow, key: u64) {
    let opening = of_game(row.rules.0, row.initial_key as u64, std::iter::once(key));
    record(row, opening);
}

/// A game's opening as views show it.
pub fn of_row(row: &GameRow) -> Option<Opening> {
    Some(Opening {
        eco: row.eco.clone()?,
        name: row.opening.clone()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opening_after(moves: &str) -> Option<(String, String)> {
        let mut pos = usual_start();
        let mut keys = Vec::new();
        for san in moves.split_whitespace() {
            let m = pos.parse_move(san).unwrap();
            pos.play_unchecked(m);
            keys.push(pos.repetition_key());
        }
        of_game(Rules::Standard, usual_start_key(), keys.into_iter())
            .map(|opening| (opening.eco, opening.name))
    }

    #[test]
    fn every_line_of_the_tables_is_read() {
        // 3,807 lines; lines that reach one position (transpositions
        // listed again) share it.
        let lines: usize = TABLES.iter().map(|t| t.lines().skip(1).count()).sum();
        assert_eq!(lines, 3807);
        assert!(
            NAMED.len() > 3000 && NAMED.len() <= lines,
            "{}",
            NAMED.len()
        );
    }

    #[test]
    fn games_take_the_name_of_their_deepest_named_position() {
        let named = |eco: &str, name: &str| Some((eco.to_owned(), name.to_owned()));
        assert_eq!(
            opening_after("e4 e5 Nf3 Nc6 Bb5"),
            named("C60", "Ruy Lopez")
        );
        assert_eq!(
            opening_after("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3"),
            named("B90", "Sicilian Defense: Najdorf Variation, English Attack")
        );
        // Moves past the book keep the last name.
        assert_eq!(
            opening_after("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 a4"),
            opening_after("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8"),
        );
        // By position: the Ruy Lopez by another move order.
        assert_eq!(
            opening_after("Nf3 Nc6 e4 e5 Bb5"),
            named("C60", "Ruy Lopez")
        );
        assert_eq!(opening_after(""), None);
    }

    #[test]
    fn only_standard_games_from_the_usual_array_are_named() {
        let key = named(usual_start_key()).map(|_| ());
        assert_eq!(key, None, "the start itself has no name");
        let keys = || [key_after("1. e4 e5")].into_iter();
        assert!(of_game(Rules::Standard, usual_start_key(), keys()).is_some());
        assert_eq!(of_game(Rules::Switching, usual_start_key(), keys()), None);
        assert_eq!(
            of_game(Rules::Standard, usual_start_key() ^ 1, keys()),
            None
        );
    }
}
