//! FIDE's Tournament Report File, TRF-2016 (FIDE Handbook C.04 Annex 2),
//! with the lines pairing programs add (`XXR` rounds, `XXC` the first
//! colour): how a Swiss is handed to another pairing program, or checked
//! by one. Fixed columns; a line is known by its first three characters.
//! Lines this module does not read are kept as they were and written back.

use std::fmt::{self, Write as _};

/// A tournament as a TRF file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// `012`: the tournament's name.
    pub name: Option<String>,
    /// `XXR`: the number of rounds the tournament will have.
    pub rounds: Option<u32>,
    /// `XXC`: the colour of the first player in the first round (`white1`
    /// or `black1`); a pairing program's default when absent is white.
    pub first_colour: Option<Colour>,
    pub players: Vec<Player>,
    /// Every other line, as it was, in order.
    pub other_lines: Vec<String>,
}

/// A player's line, `001`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// The starting rank (pairing number), from 1.
    pub number: u32,
    pub sex: Option<char>,
    pub title: Option<String>,
    pub name: String,
    pub rating: Option<u32>,
    pub federation: Option<String>,
    pub fide_id: Option<u64>,
    pub birth_date: Option<String>,
    /// Points after the rounds played, in tenths (`5.5` is 55).
    pub points_tenths: u32,
    pub rank: Option<u32>,
    /// One entry per round, the first round first.
    pub rounds: Vec<RoundEntry>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    White,
    Black,
}

/// A player's round: whom they met (none for a bye or a round not
/// played), with which colour, and the result code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundEntry {
    pub opponent: Option<u32>,
    pub colour: Option<Colour>,
    pub result: RoundResult,
}

/// The result codes of TRF-2016.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundResult {
    /// `1`, `=`, `0`: a game played.
    Win,
    Draw,
    Loss,
    /// `+`, `-`: won or lost by forfeit.
    ForfeitWin,
    ForfeitLoss,
    /// `W`, `D`, `L`: a game of fewer than one move, as won, drawn, lost.
    UnratedWin,
    UnratedDraw,
    UnratedLoss,
    /// `H`: a half-point bye; `F`: a full-point bye; `U`: the
    /// pairing-allocated bye; `Z`: absent, zero points.
    HalfBye,
    FullBye,
    PairingBye,
    ZeroBye,
    /// A blank: the game of a round being paired, not yet played.
    NotPlayed,
}

impl RoundResult {
    fn from_code(code: char) -> Option<RoundResult> {
        Some(match code {
            '1' => RoundResult::Win,
            '=' => RoundResult::Draw,
            '0' => RoundResult::Loss,
            '+' => RoundResult::ForfeitWin,
            '-' => RoundResult::ForfeitLoss,
            'W' | 'w' => RoundResult::UnratedWin,
            'D' | 'd' => RoundResult::UnratedDraw,
            'L' | 'l' => RoundResult::UnratedLoss,
            'H' | 'h' => RoundResult::HalfBye,
            'F' | 'f' => RoundResult::FullBye,
            'U' | 'u' => RoundResult::PairingBye,
            'Z' | 'z' => RoundResult::ZeroBye,
            ' ' => RoundResult::NotPlayed,
            _ => return None,
        })
    }

    fn code(self) -> char {
        match self {
            RoundResult::Win => '1',
            RoundResult::Draw => '=',
            RoundResult::Loss => '0',
            RoundResult::ForfeitWin => '+',
            RoundResult::ForfeitLoss => '-',
            RoundResult::UnratedWin => 'W',
            RoundResult::UnratedDraw => 'D',
            RoundResult::UnratedLoss => 'L',
            RoundResult::HalfBye => 'H',
            RoundResult::FullBye => 'F',
            RoundResult::PairingBye => 'U',
            RoundResult::ZeroBye => 'Z',
            RoundResult::NotPlayed => ' ',
        }
    }

    /// Whether a game was played over the board (rated or not): forfeits
    /// and byes were not, and leave no colour or opponent behind.
    pub fn is_played(self) -> bool {
        matches!(
            self,
            RoundResult::Win
                | RoundResult::Draw
                | RoundResult::Loss
                | RoundResult::UnratedWin
                | RoundResult::UnratedDraw
                | RoundResult::UnratedLoss
        )
    }

    /// Points in tenths under the usual scoring: a win or a full or
    /// pairing-allocated bye 10, a draw or half bye 5.
    pub fn points_tenths(self) -> u32 {
        match self {
            RoundResult::Win
            | RoundResult::ForfeitWin
            | RoundResult::UnratedWin
            | RoundResult::FullBye
            | RoundResult::PairingBye => 10,
            RoundResult::Draw | RoundResult::UnratedDraw | RoundResult::HalfBye => 5,
            _ => 0,
        }
    }
}

/// A line the reader refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrfError {
    /// From 1.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TrfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TrfError {}

// Columns of a player's line, from 0 (TRF-2016 counts from 1).
const NUMBER: std::ops::Range<usize> = 4..8;
const SEX: usize = 9;
const TITLE: std::ops::Range<usize> = 10..13;
const NAME: std::ops::Range<usize> = 14..47;
const RATING: std::ops::Range<usize> = 48..52;
const FEDERATION: std::ops::Range<usize> = 53..56;
const FIDE_ID: std::ops::Range<usize> = 57..68;
const BIRTH_DATE: std::ops::Range<usize> = 69..79;
const POINTS: std::ops::Range<usize> = 80..84;
const RANK: std::ops::Range<usize> = 85..89;
/// The first round's entry; each round takes ten columns: the opponent in
/// four, a blank, the colour, a blank, the result, two blanks.
const ROUNDS: usize = 91;
const ROUND_WIDTH: usize = 10;

/// The characters of `line` in `columns`, trimmed; none when blank or
/// past the line's end.
fn field(line: &[char], columns: std::ops::Range<usize>) -> Option<String> {
    let end = columns.end.min(line.len());
    if columns.start >= end {
        return None;
    }
    let text: String = line[columns.start..end].iter().collect();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn numeric<T: std::str::FromStr>(
    line: &[char],
    columns: std::ops::Range<usize>,
    what: &str,
    at: usize,
) -> Result<Option<T>, TrfError> {
    field(line, columns)
        .map(|text| {
            text.parse().map_err(|_| TrfError {
                line: at,
                message: format!("{what} is not a number: {text:?}"),
            })
        })
        .transpose()
}

impl Report {
    /// Reads a TRF file; lines end with `\n`, `\r\n` or `\r` (some
    /// programs write the last).
    pub fn parse(text: &str) -> Result<Report, TrfError> {
        let mut report = Report::default();
        let lines = text
            .split('\n')
            .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'));
        for (i, line) in lines.enumerate() {
            let at = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let code: String = line.chars().take(3).collect();
            let rest = line.get(4..).unwrap_or("").trim();
            match code.as_str() {
                "001" => report.players.push(parse_player(line, at)?),
                "012" => report.name = Some(rest.to_owned()),
                "XXR" => {
                    report.rounds = Some(rest.parse().map_err(|_| TrfError {
                        line: at,
                        message: format!("XXR is not a number of rounds: {rest:?}"),
                    })?)
                }
                "XXC" => {
                    report.first_colour = Some(match rest.to_ascii_lowercase().as_str() {
                        "white1" => Colour::White,
                        "black1" => Colour::Black,
                        other => {
                            return Err(TrfError {
                                line: at,
                                message: format!("XXC is white1 or black1, not {other:?}"),
                            });
                        }
                    })
                }
                _ => report.other_lines.push(line.to_owned()),
            }
        }
        Ok(report)
    }

    /// The file, lines ending with `\n`; a report read and written again
    /// has the same players, results and other lines.
    pub fn write(&self) -> String {
        let mut out = String::new();
        if let Some(name) = &self.name {
            let _ = writeln!(out, "012 {name}");
        }
        for line in &self.other_lines {
            let _ = writeln!(out, "{line}");
        }
        for player in &self.players {
            let _ = writeln!(out, "{}", player_line(player));
        }
        if let Some(rounds) = self.rounds {
            let _ = writeln!(out, "XXR {rounds}");
        }
        if let Some(colour) = self.first_colour {
            let _ = writeln!(
                out,
                "XXC {}",
                match colour {
                    Colour::White => "white1",
                    Colour::Black => "black1",
                }
            );
        }
        out
    }
}

fn parse_player(text: &str, at: usize) -> Result<Player, TrfError> {
    let line: Vec<char> = text.chars().collect();
    let wrong = |message: String| TrfError { line: at, message };
    let number = numeric(&line, NUMBER, "the starting rank", at)?
        .ok_or_else(|| wrong("a player's line has no starting rank".to_owned()))?;
    let points = field(&line, POINTS).unwrap_or_else(|| "0".to_owned());
    let points_tenths = parse_tenths(&points)
        .ok_or_else(|| wrong(format!("the points are not a number of halves: {points:?}")))?;
    let mut rounds = Vec::new();
    let mut start = ROUNDS;
    while start < line.len() {
        let entry: Vec<char> = (start..start + 8)
            .map(|i| line.get(i).copied().unwrap_or(' '))
            .collect();
        let round = rounds.len() + 1;
        let opponent_text: String = entry[0..4].iter().collect();
        let opponent = match opponent_text.trim() {
            "" | "0000" => None,
            digits => Some(digits.parse::<u32>().map_err(|_| {
                wrong(format!(
                    "round {round}: the opponent is not a number: {digits:?}"
                ))
            })?),
        }
        .filter(|&n| n != 0);
        let colour = match entry[5] {
            'w' | 'W' => Some(Colour::White),
            'b' | 'B' => Some(Colour::Black),
            '-' | ' ' => None,
            other => return Err(wrong(format!("round {round}: no colour {other:?}"))),
        };
        let result = RoundResult::from_code(entry[7])
            .ok_or_else(|| wrong(format!("round {round}: no result code {:?}", entry[7])))?;
        rounds.push(RoundEntry {
            opponent,
            colour,
            result,
        });
        start += ROUND_WIDTH;
    }
    // A trailing entry with nothing in it is the end of the line's padding.
    while rounds.last().is_some_and(|r| {
        r.opponent.is_none() && r.colour.is_none() && r.result == RoundResult::NotPlayed
    }) {
        rounds.pop();
    }
    Ok(Player {
        number,
        sex: field(&line, SEX..SEX + 1).and_then(|s| s.chars().next()),
        title: field(&line, TITLE),
        name: field(&line, NAME).unwrap_or_default(),
        rating: numeric(&line, RATING, "the rating", at)?,
        federation: field(&line, FEDERATION),
        fide_id: numeric(&line, FIDE_ID, "the FIDE id", at)?,
        birth_date: field(&line, BIRTH_DATE),
        points_tenths,
        rank: numeric(&line, RANK, "the rank", at)?,
        rounds,
    })
}

/// `5.5` as 55, `10` as 100.
fn parse_tenths(text: &str) -> Option<u32> {
    let (whole, tenth) = match text.split_once('.') {
        Some((whole, tenth)) if tenth.len() == 1 => (whole, tenth),
        Some(_) => return None,
        None => (text, "0"),
    };
    Some(whole.parse::<u32>().ok()? * 10 + tenth.parse::<u32>().ok()?)
}

/// A player's line in TRF-2016's columns.
fn player_line(player: &Player) -> String {
    let mut line: Vec<char> = vec![' '; ROUNDS];
    let mut put = |start: usize, width: usize, text: &str, right: bool| {
        let text: Vec<char> = text.chars().take(width).collect();
        let offset = if right { width - text.len() } else { 0 };
        for (i, c) in text.into_iter().enumerate() {
            line[start + offset + i] = c;
        }
    };
    put(0, 3, "001", false);
    put(NUMBER.start, NUMBER.len(), &player.number.to_string(), true);
    if let Some(sex) = player.sex {
        put(SEX, 1, &sex.to_string(), false);
    }
    if let Some(title) = &player.title {
        put(TITLE.start, TITLE.len(), title, true);
    }
    put(NAME.start, NAME.len(), &player.name, false);
    if let Some(rating) = player.rating {
        put(RATING.start, RATING.len(), &rating.to_string(), true);
    }
    if let Some(federation) = &player.federation {
        put(FEDERATION.start, FEDERATION.len(), federation, false);
    }
    if let Some(id) = player.fide_id {
        put(FIDE_ID.start, FIDE_ID.len(), &id.to_string(), true);
    }
    if let Some(date) = &player.birth_date {
        put(BIRTH_DATE.start, BIRTH_DATE.len(), date, false);
    }
    let points = format!(
        "{}.{}",
        player.points_tenths / 10,
        player.points_tenths % 10
    );
    put(POINTS.start, POINTS.len(), &points, true);
    if let Some(rank) = player.rank {
        put(RANK.start, RANK.len(), &rank.to_string(), true);
    }
    let mut text: String = line.into_iter().collect();
    for round in &player.rounds {
        let opponent = round
            .opponent
            .map_or_else(|| "0000".to_owned(), |n| format!("{n:>4}"));
        let colour = match round.colour {
            Some(Colour::White) => 'w',
            Some(Colour::Black) => 'b',
            None => '-',
        };
        let _ = write!(text, "{opponent} {colour} {}  ", round.result.code());
    }
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_read_in_tenths() {
        assert_eq!(parse_tenths("5.5"), Some(55));
        assert_eq!(parse_tenths("10"), Some(100));
        assert_eq!(parse_tenths("0.0"), Some(0));
        assert_eq!(parse_tenths("1.25"), None);
        assert_eq!(parse_tenths("x"), None);
    }

    #[test]
    fn a_bye_and_a_blank_round_are_read() {
        // The columns of TRF-2016: rank 5-8, name 15-47, rating 49-52,
        // points 81-84, rank 86-89, the first round from 92.
        let line = format!(
            "001 {:>4}      {:<33} {:>4} {:<3} {:>11} {:<10} {:>4} {:>4}  0000 - U     5 w  ",
            3, "Doe, Jane", 1800, "", "", "", "1.0", 2
        );
        let player = parse_player(&line, 1).unwrap();
        assert_eq!(player.number, 3);
        assert_eq!(player.rating, Some(1800));
        assert_eq!(player.points_tenths, 10);
        assert_eq!(
            player.rounds,
            [
                RoundEntry {
                    opponent: None,
                    colour: None,
                    result: RoundResult::PairingBye
                },
                RoundEntry {
                    opponent: Some(5),
                    colour: Some(Colour::White),
                    result: RoundResult::NotPlayed
                },
            ]
        );
    }

    #[test]
    fn a_bad_result_code_names_its_line_and_round() {
        let line = format!(
            "001 {:>4}      {:<33} {:>4} {:<3} {:>11} {:<10} {:>4} {:>4}     2 w 1     3 b X",
            1, "A", "", "", "", "", "1.0", 1
        );
        let error = Report::parse(&format!("012 T\n{line}\n")).unwrap_err();
        assert_eq!(error.line, 2);
        assert!(error.message.contains("round 2"), "{error}");
    }
}
