//! Writing PGN: tags escaped, movetext numbered and wrapped at 80 columns,
//! each move's time as a `{[%ts ...]}` comment, comments, NAGs and
//! variations where python-chess writes them.

use std::fmt::Write as _;

use arrayvec::ArrayString;

use crate::{
    Color, Game, Position, Rules, Start,
    pgn::{LineMove, Notes},
};

/// A mainline move as written in movetext.
#[derive(Clone, Debug)]
pub struct PgnMove<'a> {
    pub san: &'a str,
    /// RFC 3339 time of the move, written as `{[%ts ...]}` unless its
    /// comment holds one already (as an imported game's does).
    pub timestamp: Option<&'a str>,
    pub notes: Option<&'a Notes<LineMove>>,
}

/// Appends a tag value with `\` and `"` escaped and line breaks turned to
/// spaces.
fn push_tag_value(out: &mut String, value: &str) {
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
}

/// Lines of at most 80 columns, made of space-separated tokens; a token
/// longer than that (a long comment) stands on a line of its own.
struct Wrapped<'a> {
    out: &'a mut String,
    line: usize,
    /// The last token opened a variation: the next is written against it.
    glued: bool,
}

impl Wrapped<'_> {
    fn push(&mut self, token: &str) {
        self.push_parts(&[token]);
    }

    /// Pushes one token given in parts, so that a token made of a number or
    /// a time and its brackets needs no string of its own: an archive writes
    /// a few for each of millions of moves.
    fn push_parts(&mut self, parts: &[&str]) {
        let width: usize = parts.iter().map(|part| part.chars().count()).sum();
        if self.glued {
            self.glued = false;
        } else if self.line > 0 && self.line + 1 + width > 80 {
            self.out.push('\n');
            self.line = 0;
        } else if self.line > 0 {
            self.out.push(' ');
            self.line += 1;
        }
        let start = self.out.len();
        for part in parts {
            self.out.push_str(part);
        }
        let token = &self.out[start..];
        self.line = match token.rfind('\n') {
            Some(at) => token[at + 1..].chars().count(),
            None => self.line + width,
        };
    }

    fn open_variation(&mut self) {
        self.push("(");
        self.glued = true;
    }

    fn close_variation(&mut self) {
        self.out.push(')');
        self.line += 1;
    }

    fn comment(&mut self, text: &str) {
        // python-chess reads `{ x }` as `x`; `}` cannot stand in a comment.
        if text.contains('}') {
            self.push_parts(&["{ ", &text.replace('}', ""), " }"]);
        } else {
            self.push_parts(&["{ ", text, " }"]);
        }
    }
}

/// Where a move stands: its move number and the side that plays it.
#[derive(Clone, Copy)]
struct Turn {
    number: u32,
    color: Color,
}

impl Turn {
    fn next(self) -> Turn {
        Turn {
            number: self.number + u32::from(self.color == Color::Black),
            color: !self.color,
        }
    }
}

/// One move and its notes, the number before it where a reader needs one:
/// always before White's move, before Black's after a comment or variation.
fn write_move(
    text: &mut Wrapped<'_>,
    turn: Turn,
    numbered: bool,
    san: &str,
    timestamp: Option<&str>,
    notes: Option<&Notes<LineMove>>,
) {
    let starting = notes.and_then(|n| n.starting_comment.as_deref());
    if let Some(comment) = starting {
        text.comment(comment);
    }
    let dots = match turn.color {
        Color::White => Some("."),
        Color::Black if numbered || starting.is_some() => Some("..."),
        Color::Black => None,
    };
    if let Some(dots) = dots {
        let mut number = ArrayString::<10>::new();
        let _ = write!(number, "{}", turn.number);
        text.push_parts(&[&number, dots]);
    }
    text.push(san);
    for nag in notes.map_or(&[][..], |n| &n.nags) {
        text.push(&format!("${nag}"));
    }
    let comment = notes.and_then(|n| n.comment.as_deref());
    if let Some(ts) = timestamp.filter(|_| !comment.is_some_and(|c| c.contains("[%ts "))) {
        text.push_parts(&["{[%ts ", ts, "]}"]);
    }
    if let Some(comment) = comment {
        text.comment(comment);
    }
    for line in notes.map_or(&[][..], |n| &n.variations) {
        text.open_variation();
        write_line(text, turn, line);
        text.close_variation();
    }
}

/// Whether a Black move after these notes needs its number again.
fn interrupts(timestamp: Option<&str>, notes: Option<&Notes<LineMove>>) -> bool {
    timestamp.is_some() || notes.is_some_and(|n| n.comment.is_some() || !n.variations.is_empty())
}

fn write_line(text: &mut Wrapped<'_>, mut turn: Turn, line: &[LineMove]) {
    let mut numbered = true;
    for m in line {
        write_move(text, turn, numbered, &m.san, None, Some(&m.notes));
        numbered = interrupts(None, Some(&m.notes));
        turn = turn.next();
    }
}

/// Appends one game to `out`: the tags in order, a blank line, the movetext
/// from `initial` (after the game's `comment`) ending with `result`, and a
/// blank line.
pub fn write_game<N: AsRef<str>>(
    out: &mut String,
    tags: &[(N, String)],
    initial: &Position,
    comment: Option<&str>,
    moves: &[PgnMove<'_>],
    result: &str,
) {
    for (name, value) in tags {
        out.push('[');
        out.push_str(name.as_ref());
        out.push_str(" \"");
        push_tag_value(out, value);
        out.push_str("\"]\n");
    }
    out.push('\n');
    let mut text = Wrapped {
        out,
        line: 0,
        glued: false,
    };
    if let Some(comment) = comment {
        text.comment(comment);
    }
    let mut turn = Turn {
        number: initial.fullmoves(),
        color: initial.turn(),
    };
    let mut numbered = true;
    for m in moves {
        write_move(&mut text, turn, numbered, m.san, m.timestamp, m.notes);
        numbered = interrupts(m.timestamp, m.notes);
        turn = turn.next();
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
    let moves: Vec<PgnMove<'_>> = sans
        .iter()
        .map(|san| PgnMove {
            san,
            timestamp,
            notes: None,
        })
        .collect();
    write_game(out, tags, game.initial(), None, &moves, game.result());
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
