//! Writing PGN: tags escaped, movetext numbered and wrapped at 80 columns,
//! each move's time as a `{[%ts ...]}` comment.

use std::fmt::Write as _;

use crate::{Color, Game, Position, Rules, Start};

/// A move as written in movetext.
#[derive(Clone, Debug)]
pub struct PgnMove<'a> {
    pub san: &'a str,
    /// RFC 3339 time of the move, written as `{[%ts ...]}`.
    pub timestamp: Option<&'a str>,
}

/// A tag value with `\` and `"` escaped and line breaks turned to spaces.
pub fn escape_tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '\\' | '"' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

/// Lines of at most 80 columns, made of space-separated tokens.
struct Wrapped<'a> {
    out: &'a mut String,
    line: usize,
}

impl Wrapped<'_> {
    fn push(&mut self, token: &str) {
        if self.line > 0 && self.line + 1 + token.len() > 80 {
            self.out.push('\n');
            self.line = 0;
        } else if self.line > 0 {
            self.out.push(' ');
            self.line += 1;
        }
        self.out.push_str(token);
        self.line += token.len();
    }
}

/// Appends one game to `out`: the tags in order, a blank line, the movetext
/// from `initial` ending with `result`, and a blank line.
pub fn write_game<N: AsRef<str>>(
    out: &mut String,
    tags: &[(N, String)],
    initial: &Position,
    moves: &[PgnMove<'_>],
    result: &str,
) {
    for (name, value) in tags {
        let _ = writeln!(out, "[{} \"{}\"]", name.as_ref(), escape_tag_value(value));
    }
    out.push('\n');
    let mut text = Wrapped { out, line: 0 };
    let mut number = initial.fullmoves();
    let mut turn = initial.turn();
    let mut after_comment = true;
    for m in moves {
        match turn {
            Color::White => text.push(&format!("{number}.")),
            Color::Black if after_comment => text.push(&format!("{number}...")),
            Color::Black => {}
        }
        text.push(m.san);
        after_comment = false;
        if let Some(ts) = m.timestamp {
            text.push(&format!("{{[%ts {ts}]}}"));
            after_comment = true;
        }
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    text.push(result);
    out.push_str("\n\n");
}

/// Appends a game played with core's [`Game`]: `tags`, then its moves in
/// SAN, each with `timestamp` if given, and the result the rules give it
/// (`*` while under way). For samples, tests and benchmarks.
pub fn write_played<N: AsRef<str>>(
    out: &mut String,
    tags: &[(N, String)],
    game: &Game,
    timestamp: Option<&str>,
) {
    let sans = game.sans();
    let moves: Vec<PgnMove<'_>> = sans.iter().map(|san| PgnMove { san, timestamp }).collect();
    write_game(out, tags, game.initial(), &moves, game.result());
}

/// The tags that say under which rules and from which start a game is
/// played: `Variant` (`chess960` for a Chess960 game whose start is given
/// as a FEN), `SetUp` and `FEN` unless the game starts from the usual chess
/// array as a reader that knows no variant sets it up (a Captive Kings game
/// from the usual array has its kings exchanged), and `StartPosition` for a
/// numbered or Pre-chess start, or a rule set's own setting of the usual
/// array.
pub fn rules_tags(
    rules: Rules,
    start: &Start,
    initial: &Position,
    chess960: bool,
) -> Vec<(&'static str, String)> {
    let chess960 = chess960 || matches!(start, Start::Chess960(_));
    let mut tags = vec![("Variant", rules.pgn_name(chess960).to_owned())];
    let fen = initial.fen();
    let usual = is_usual_array(&fen);
    if !usual {
        tags.push(("SetUp", "1".to_owned()));
        tags.push(("FEN", fen));
    }
    let numbered = match start {
        Start::Chess960(n) => Some(format!("chess960:{n}")),
        Start::Shuffle(n) => Some(format!("shuffle:{n}")),
        Start::Prechess => Some("prechess".to_owned()),
        // The rule set's own setting of the usual array (Captive Kings).
        Start::Standard if !usual => Some("standard".to_owned()),
        Start::Standard | Start::Fen(_) => None,
    };
    tags.extend(numbered.map(|value| ("StartPosition", value)));
    tags
}

/// Whether a FEN is the usual chess start in the six fields every reader
/// knows. The usual start's FEN is written once, not for every game exported.
fn is_usual_array(fen: &str) -> bool {
    static USUAL: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| Position::new(Rules::Standard).fen());
    fen.split(' ').take(6).eq(USUAL.split(' ').take(6))
}
