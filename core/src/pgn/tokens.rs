//! The mainline move tokens of movetext, read as real files write them:
//! move numbers with or without their dots, standalone `...`, `e.p.`
//! suffixes, NAGs and their glyphs (`$1`, `!?`, `+-`, `±`), results in
//! Unicode (`½-½`, `1–0`); comments, variations and escape lines set aside.

use pgn_reader::SanPlus;

use super::{
    notes::{MAX_VARIATION_DEPTH, Notes, append_comment, suffix_nag},
    read::MoveToken,
};

/// The four game termination markers of the PGN standard.
pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// The termination marker a word means, read leniently: `½` for `1/2` and
/// en or em dashes for hyphens, as word processors write them.
pub fn result_of(word: &str) -> Option<&'static str> {
    // Every spelling starts so: most words are moves and leave here.
    if !word.starts_with(['1', '0', '*', '½']) {
        return None;
    }
    if let Some(result) = RESULTS.iter().find(|r| **r == word) {
        return Some(result);
    }
    if word.is_ascii() {
        return None;
    }
    let plain = word.replace('½', "1/2").replace(['–', '—'], "-");
    RESULTS.iter().find(|r| **r == plain).copied()
}

/// Null moves as PGN writers spell them: no rule set has a move that passes.
pub const NULL_MOVES: [&str; 4] = ["--", "Z0", "0000", "@@@@"];

/// Movetext as read: the mainline's move tokens with their annotations,
/// the comment before the first move, and the termination marker.
#[derive(Clone, Debug, Default)]
pub struct Movetext {
    pub comment: Option<String>,
    pub moves: Vec<MoveToken>,
    pub result: Option<&'static str>,
    /// Variations left out: nested deeper than [`MAX_VARIATION_DEPTH`], or
    /// with no move before them to replace.
    pub left_out: usize,
}

/// Builds the tree of lines as python-chess's `GameBuilder` does, so that
/// a comment lands on the move python-chess gives it: after a move, on that
/// move; before the first move, on the game; right after `(`, before the
/// variation's first move.
#[derive(Default)]
struct Lines {
    /// The line being read last: the mainline first, then each open variation.
    open: Vec<Vec<MoveToken>>,
    /// Depth of variations being skipped, inside the last one kept.
    skipping: usize,
    game_comment: Option<String>,
    starting_comment: Option<String>,
    /// A move was read since the last `(`: python-chess's `in_variation`.
    after_move: bool,
    left_out: usize,
}

impl Lines {
    fn current(&mut self) -> &mut Vec<MoveToken> {
        self.open.last_mut().expect("the mainline is always open")
    }

    fn comment(&mut self, text: &str) {
        if self.skipping > 0 || text.is_empty() {
            return;
        }
        let mainline_unstarted = self.open.len() == 1 && self.current().is_empty();
        if self.after_move
            && let Some(last) = self.current().last_mut()
        {
            if let Some(ts) = timestamp_in(text) {
                last.timestamp = Some(ts);
            }
            last.notes.add_comment(text);
        } else if mainline_unstarted {
            append_comment(&mut self.game_comment, text);
        } else {
            append_comment(&mut self.starting_comment, text);
        }
    }

    fn nag(&mut self, nag: u8) {
        if self.skipping == 0
            && let Some(last) = self.current().last_mut()
        {
            last.notes.add_nag(nag);
        }
    }

    fn push(&mut self, text: String) {
        if self.skipping > 0 {
            return;
        }
        let notes = Notes {
            starting_comment: self.starting_comment.take(),
            ..Notes::default()
        };
        self.current().push(MoveToken {
            san: SanPlus::from_ascii(text.as_bytes()).ok(),
            text,
            timestamp: None,
            notes,
        });
        self.after_move = true;
    }

    fn open_variation(&mut self) {
        if self.skipping > 0 || self.open.len() > MAX_VARIATION_DEPTH || self.current().is_empty() {
            // Each variation left out counts, those inside one left out too.
            self.left_out += 1;
            self.skipping += 1;
            return;
        }
        self.open.push(Vec::new());
        self.starting_comment = None;
        self.after_move = false;
    }

    fn close_variation(&mut self) {
        if self.skipping > 0 {
            self.skipping -= 1;
            return;
        }
        if self.open.len() == 1 {
            return; // a `)` with no `(`, as python-chess reads it
        }
        let line = self.open.pop().expect("a variation is open");
        self.starting_comment = None;
        if !line.is_empty() {
            let replaced = self.current().last_mut().expect("opened after a move");
            replaced.notes.variations.push(line);
        }
    }

    fn finish(mut self, result: Option<&'static str>) -> Movetext {
        self.skipping = 0;
        while self.open.len() > 1 {
            self.close_variation();
        }
        Movetext {
            comment: self.game_comment,
            moves: self.open.pop().unwrap_or_default(),
            result,
            left_out: self.left_out,
        }
    }
}

/// Reads movetext into its lines of moves and annotations, up to the
/// termination marker of the mainline.
pub fn tokenize(movetext: &str) -> Movetext {
    let mut lines = Lines {
        open: vec![Vec::new()],
        ..Lines::default()
    };
    // Walked by bytes: every delimiter is ASCII, and no byte of a
    // multi-byte character is; such characters are decoded where met.
    let mut at = 0;
    let mut at_line_start = true;
    while at < movetext.len() {
        let start = at;
        let ch = char_at(movetext, at);
        at += ch.len_utf8();
        match ch {
            // An escaped line, or a comment to the end of the line.
            '%' if at_line_start => at = after_line(movetext, at),
            ';' => at = after_line(movetext, at),
            '{' => {
                let end = movetext[at..].find('}').map_or(movetext.len(), |i| at + i);
                lines.comment(&comment_text(&movetext[at..end]));
                at = (end + 1).min(movetext.len());
            }
            '(' => lines.open_variation(),
            ')' => lines.close_variation(),
            c if c.is_whitespace() => {}
            _ => {
                at = word_end(movetext, at);
                let word = &movetext[start..at];
                match result_of(word) {
                    Some(result) if lines.open.len() == 1 => return lines.finish(Some(result)),
                    // Inside a variation a result ends nothing.
                    Some(_) => {}
                    None => match word_of(word) {
                        Word::Move(text, nag) => {
                            lines.push(text);
                            if let Some(nag) = nag {
                                lines.nag(nag);
                            }
                        }
                        Word::Nag(nag) => lines.nag(nag),
                        Word::Other => {}
                    },
                }
            }
        }
        at_line_start = matches!(ch, '\n' | '%' | ';');
    }
    lines.finish(None)
}

/// The character at byte `at` of `text`, a character boundary.
fn char_at(text: &str, at: usize) -> char {
    match text.as_bytes()[at] {
        byte if byte.is_ascii() => char::from(byte),
        _ => text[at..]
            .chars()
            .next()
            .expect("a character at a boundary"),
    }
}

/// Where the line holding byte `at` ends: after its `\n`, or the text's end.
fn after_line(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// Where the word going on at byte `at` ends: at white space, a comment,
/// a variation's bracket or the text's end.
fn word_end(text: &str, mut at: usize) -> usize {
    while at < text.len() {
        let c = char_at(text, at);
        if c.is_whitespace() || matches!(c, '{' | '(' | ')' | ';') {
            break;
        }
        at += c.len_utf8();
    }
    at
}

/// The text of a comment, between its braces (comments do not nest), as
/// python-chess reads it: one space after `{` and one before `}` are the
/// comment's frame, not its text, and its line ends are `\n` whatever the
/// file's (CRLF, or CR alone).
fn comment_text(inside: &str) -> String {
    let text = inside.strip_prefix(' ').unwrap_or(inside);
    let text = text.strip_suffix(' ').unwrap_or(text);
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    }
}

/// What a word of movetext is.
enum Word {
    /// A move as written, with the NAG of its suffix (`e4!?`).
    Move(String, Option<u8>),
    /// `$14`, or a suffix written apart (`e4 !?`).
    Nag(u8),
    /// A move number, dots, an `e.p.` written apart, a glyph that is no NAG.
    Other,
}

/// The move in a word: move numbers (`12.`, `12...`, glued `1.e4`),
/// standalone dots and an `e.p.` or `ep` suffix removed, and an annotation
/// suffix (`!?`) read as its NAG; a NAG (`$14`, `\$14`) read as one. Null moves stay, for the replay to refuse
/// them by name.
fn word_of(word: &str) -> Word {
    // ChessBase escapes the dollar of a NAG: `\$14`.
    if let Some(number) = word.strip_prefix('$').or_else(|| word.strip_prefix("\\$")) {
        return number.parse().map_or(Word::Other, Word::Nag);
    }
    let without_number = word.trim_start_matches(|c: char| c.is_ascii_digit());
    if without_number.is_empty() {
        return Word::Other;
    }
    let rest = if without_number.len() < word.len() && without_number.starts_with('.') {
        without_number.trim_start_matches('.')
    } else {
        word
    };
    if NULL_MOVES.contains(&rest) {
        return Word::Move(rest.to_owned(), None);
    }
    let bare = rest.trim_end_matches(['!', '?']);
    let nag = suffix_nag(&rest[bare.len()..]);
    if bare.is_empty() {
        return nag.map_or(Word::Other, Word::Nag);
    }
    if bare.chars().all(is_glyph) || bare == "e.p." || bare == "ep" {
        return Word::Other;
    }
    let text = bare
        .strip_suffix("e.p.")
        .or_else(|| bare.strip_suffix("ep"))
        .unwrap_or(bare);
    Word::Move(text.to_owned(), nag)
}

/// A character of the glyphs that stand for NAGs (`+-`, `=+`, `±`, `∞`,
/// `□`...), a word of which is no move.
fn is_glyph(c: char) -> bool {
    matches!(
        c,
        '.' | '+'
            | '-'
            | '='
            | '/'
            | '!'
            | '?'
            | '~'
            | '∞'
            | '±'
            | '∓'
            | '⩲'
            | '⩱'
            | '□'
            | '⨀'
            | '○'
            | '⟳'
            | '↑'
            | '→'
            | '⇆'
            | '∆'
            | '⊥'
            | '⌓'
    )
}

/// The time in a `[%ts ...]` command of a comment.
fn timestamp_in(comment: &str) -> Option<String> {
    let rest = &comment[comment.find("[%ts ")? + 5..];
    Some(rest[..rest.find(']')?].trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(movetext: &str) -> (Vec<String>, Option<&'static str>) {
        let read = tokenize(movetext);
        (
            read.moves.into_iter().map(|m| m.text).collect(),
            read.result,
        )
    }

    fn line(moves: &[MoveToken]) -> Vec<&str> {
        moves.iter().map(|m| m.text.as_str()).collect()
    }

    #[test]
    fn a_nag_escaped_with_a_backslash_reads_as_the_nag() {
        // ChessBase writes `\$14`.
        let game = tokenize("1. e4 \\$14 e5 2. Nf3 \\$1 *");
        assert_eq!(line(&game.moves), ["e4", "e5", "Nf3"]);
        assert_eq!(game.moves[0].notes.nags, [14]);
        assert_eq!(game.moves[2].notes.nags, [1]);
    }

    #[test]
    fn the_mainline_reads_past_comments_variations_numbers_and_nags() {
        let (moves, result) = texts(
            "1. e4 {best} e5 (1... c5 ; x ) y\n 2. Nf3 {x}) 2.Nf3 $1 Nc6!? ; rest\n3. Bb5 1-0",
        );
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        assert_eq!(result, Some("1-0"));
    }

    #[test]
    fn annotations_land_where_python_chess_puts_them() {
        let read = tokenize(
            "{ the game } 1. e4 { best } e5 ( { instead } 1... c5 ; x ) y\n 2. Nf3 {x}) {after} \
             2.Nf3 $1 $14 Nc6!? ; rest\n3. Bb5 1-0",
        );
        assert_eq!(read.comment.as_deref(), Some("the game"));
        let [e4, e5, nf3, nc6, _] = &read.moves[..] else {
            panic!("{:?}", read.moves)
        };
        assert_eq!(e4.notes.comment.as_deref(), Some("best"));
        let [variation] = &e5.notes.variations[..] else {
            panic!("{:?}", e5.notes)
        };
        assert_eq!(line(variation), ["c5", "Nf3"]);
        assert_eq!(
            variation[0].notes.starting_comment.as_deref(),
            Some("instead")
        );
        assert_eq!(variation[1].notes.comment.as_deref(), Some("x"));
        // After a variation, a comment belongs to the move it replaced.
        assert_eq!(e5.notes.comment.as_deref(), Some("after"));
        assert_eq!(nf3.notes.nags, [1, 14]);
        assert_eq!(nc6.notes.nags, [5]);
    }

    #[test]
    fn line_ends_in_comments_are_newlines() {
        let read = tokenize("1. e4 { two\r\nlines\rthree } e5 *");
        assert_eq!(
            read.moves[0].notes.comment.as_deref(),
            Some("two\nlines\nthree")
        );
    }

    #[test]
    fn comments_lose_their_frame_and_join() {
        let read = tokenize("1. e4 {  two spaces } {second} {} e5 *");
        assert_eq!(
            read.moves[0].notes.comment.as_deref(),
            Some(" two spaces second")
        );
    }

    #[test]
    fn variations_nest_and_deep_ones_are_left_out() {
        let read = tokenize("1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) (1. c4) e5 *");
        let variations = &read.moves[0].notes.variations;
        assert_eq!(variations.len(), 2);
        assert_eq!(line(&variations[0]), ["d4", "d5", "c4"]);
        assert_eq!(line(&variations[0][1].notes.variations[0]), ["Nf6", "c4"]);
        assert_eq!(line(&variations[1]), ["c4"]);
        assert_eq!(read.left_out, 0);

        let depth = MAX_VARIATION_DEPTH + 5;
        let deep = format!("1. e4 {} *", "(1. d4 ".repeat(depth) + &")".repeat(depth));
        let read = tokenize(&deep);
        assert_eq!(read.left_out, 5, "the five nested past the bound");
        let mut level = &read.moves[0].notes.variations;
        let mut kept = 0;
        while let Some(first) = level.first() {
            kept += 1;
            level = &first[0].notes.variations;
        }
        assert_eq!(kept, MAX_VARIATION_DEPTH);
        assert_eq!(read.result, Some("*"));
    }

    #[test]
    fn unbalanced_parentheses_end_the_game_cleanly() {
        let read = tokenize("1. e4 (1. d4 d5 (1... c5");
        assert_eq!(line(&read.moves), ["e4"]);
        assert_eq!(line(&read.moves[0].notes.variations[0]), ["d4", "d5"]);
        assert_eq!(texts("1. e4 ) e5 *").0, ["e4", "e5"]);
        // A variation before any move has nothing to replace.
        assert_eq!(tokenize("(1. d4) 1. e4 *").left_out, 1);
    }

    #[test]
    fn real_files_spellings_are_read() {
        let (moves, result) =
            texts("1. e4 {c} 1. ... e5 2. Nf3 ... Nc6 3. exf6 e.p. +- exd6ep ± ½-½");
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6", "exf6", "exd6"]);
        assert_eq!(result, Some("1/2-1/2"));
        assert_eq!(texts("1. e4 1–0").1, Some("1-0"));
        assert_eq!(texts("1. e4 0—1").1, Some("0-1"));
        assert_eq!(texts("1. e4 (1. d4 1-0) e5 *").0, ["e4", "e5"]);
    }

    #[test]
    fn null_moves_stay_to_be_refused() {
        assert_eq!(texts("1. e4 -- 2. d4 Z0 *").0, ["e4", "--", "d4", "Z0"]);
    }

    #[test]
    fn timestamps_attach_to_the_move_before() {
        let read = tokenize("1. e4 {[%ts 2026-11-30T12:00:00Z]} 1... e5 *");
        assert_eq!(
            read.moves[0].timestamp.as_deref(),
            Some("2026-11-30T12:00:00Z")
        );
        assert_eq!(
            read.moves[0].notes.comment.as_deref(),
            Some("[%ts 2026-11-30T12:00:00Z]")
        );
        assert_eq!(read.moves[1].timestamp, None);
    }
}
