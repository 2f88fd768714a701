//! Splitting a PGN stream into the texts of its games, as the PGN standard
//! delimits them: braces open comments only in movetext and do not nest, `;`
//! comments run to the end of the line, lines starting with `%` are escape
//! lines (8.2.2, 8.2.5). A game ends where a tag line follows movetext, where
//! movetext follows a termination marker (tagless games), or where a tag
//! line follows a blank line after tags (games of tags alone), or after a
//! blank line in a comment left open.
//!
//! The stream is read as bytes: each game is decoded on its own, as UTF-8
//! when it is, as Windows-1252 otherwise, and byte-order marks are removed
//! wherever they stand (files joined with `cat`).

use std::io::{self, BufRead};

use super::tokens::result_of;

/// The text of one game, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameText {
    pub text: String,
    /// The game's bytes were not UTF-8 and were read as Windows-1252.
    pub windows_1252: bool,
}

impl GameText {
    /// A game given as text.
    pub fn new(text: impl Into<String>) -> GameText {
        GameText {
            text: text.into(),
            windows_1252: false,
        }
    }

    fn decode(bytes: Vec<u8>) -> GameText {
        match String::from_utf8(bytes) {
            Ok(text) => GameText::new(text),
            Err(error) => {
                let (text, _) =
                    encoding_rs::WINDOWS_1252.decode_without_bom_handling(error.as_bytes());
                GameText {
                    text: text.into_owned(),
                    windows_1252: true,
                }
            }
        }
    }
}

/// The texts of the games of a PGN stream, one at a time.
#[derive(Debug)]
pub struct GameTexts<R> {
    input: R,
    /// The bytes of the game being read.
    pending: Vec<u8>,
    /// A line read but not yet placed: it may open the next game.
    line: Vec<u8>,
}

impl<R: BufRead> GameTexts<R> {
    pub fn new(input: R) -> GameTexts<R> {
        GameTexts {
            input,
            pending: Vec::new(),
            line: Vec::new(),
        }
    }

    fn take_game(&mut self) -> Option<io::Result<GameText>> {
        let bytes = std::mem::take(&mut self.pending);
        (!bytes.trim_ascii().is_empty()).then(|| Ok(GameText::decode(bytes)))
    }
}

/// Where the reader stands in the game being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    /// Nothing but blank lines yet.
    Nothing,
    Tags,
    /// A blank line after tags: the movetext, the next game's tags, or
    /// more of this game's (a `ChessBase` export has a blank line after `Event`).
    AfterTags,
    Movetext,
}

/// What reading a game has met so far.
#[derive(Debug)]
struct Scan {
    section: Section,
    in_comment: bool,
    /// A blank line stood inside the open comment.
    blank_in_comment: bool,
    /// How deep in variations the movetext stands.
    depth: usize,
    /// A termination marker stood in the movetext, outside comments and
    /// variations.
    ended: bool,
    /// The names of the tags read so far.
    tag_names: Vec<Vec<u8>>,
}

impl<R: BufRead> Iterator for GameTexts<R> {
    type Item = io::Result<GameText>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut scan = Scan::new();
        loop {
            if self.line.is_empty() {
                match self.input.read_until(b'\n', &mut self.line) {
                    Ok(0) => return self.take_game(),
                    Ok(_) => remove_byte_order_marks(&mut self.line),
                    Err(error) => return Some(Err(error)),
                }
            }
            match scan.place(&self.line) {
                Placement::Keep => self.pending.extend_from_slice(&self.line),
                Placement::Skip => {}
                Placement::NextGame => {
                    if let Some(game) = self.take_game() {
                        // The line stays for the next game.
                        return Some(game);
                    }
                    // Nothing but blanks before it: the line begins this game.
                    scan = Scan::new();
                    continue;
                }
            }
            self.line.clear();
        }
    }
}

/// What becomes of a line.
enum Placement {
    /// It belongs to the game being read.
    Keep,
    /// It belongs to no game: an escape line, or a bracketed line that is
    /// not a tag (`[/pgn]` after a game pasted from a forum).
    Skip,
    /// It opens the next game.
    NextGame,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            section: Section::Nothing,
            in_comment: false,
            blank_in_comment: false,
            depth: 0,
            ended: false,
            tag_names: Vec::new(),
        }
    }

    fn place(&mut self, line: &[u8]) -> Placement {
        if self.in_comment {
            let trimmed = line.trim_ascii();
            // A comment left open (a stray `{`) would swallow every game
            // after it: a tag pair after a blank line is the next game's.
            if self.blank_in_comment && trimmed.starts_with(b"[") && is_tag_pair(trimmed) {
                return Placement::NextGame;
            }
            self.blank_in_comment |= trimmed.is_empty();
            self.scan_movetext(line);
            return Placement::Keep;
        }
        if line.first() == Some(&b'%') {
            return Placement::Skip;
        }
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            if self.section == Section::Tags {
                self.section = Section::AfterTags;
            }
            return Placement::Keep;
        }
        if trimmed.starts_with(b"[") {
            if !is_tag_pair(trimmed) {
                return Placement::Skip;
            }
            let name = tag_name(trimmed);
            // After a blank line, tags go on unless one opens a game (an
            // `Event`) or names a tag this game has.
            let next_game = match self.section {
                Section::Movetext => true,
                Section::AfterTags => name == b"Event" || self.tag_names.iter().any(|n| n == name),
                Section::Nothing | Section::Tags => false,
            };
            if next_game {
                return Placement::NextGame;
            }
            self.tag_names.push(name.to_vec());
            self.section = Section::Tags;
            return Placement::Keep;
        }
        // Movetext after a termination marker is the next game's, unless it
        // opens with a comment, which is kept with the game before.
        if self.ended && !trimmed.starts_with(b"{") && !trimmed.starts_with(b";") {
            return Placement::NextGame;
        }
        self.section = Section::Movetext;
        self.scan_movetext(line);
        Placement::Keep
    }

    /// Follows comments, variations and termination markers through a line
    /// of movetext. Byte by byte: every delimiter is ASCII, in UTF-8 and in
    /// Windows-1252 alike.
    fn scan_movetext(&mut self, line: &[u8]) {
        // Most lines hold moves alone: one quick pass tells.
        let telling = |b: &u8| {
            matches!(
                b,
                b'{' | b'}' | b';' | b'(' | b')' | b'-' | b'*' | 0xC2 | 0xE2
            )
        };
        if !self.in_comment && !line.iter().any(telling) {
            return;
        }
        let mut i = 0;
        let mut at_word_start = true;
        while i < line.len() {
            if self.in_comment {
                match line[i..].iter().position(|b| *b == b'}') {
                    Some(end) => i += end + 1,
                    None => return,
                }
                self.in_comment = false;
                self.blank_in_comment = false;
                at_word_start = true;
                continue;
            }
            let byte = line[i];
            match byte {
                b'{' => self.in_comment = true,
                b';' => return,
                b'(' => self.depth += 1,
                b')' => self.depth = self.depth.saturating_sub(1),
                // Where a termination marker may start (`½` is 0xC2 0xBD).
                b'1' | b'0' | b'*' | 0xC2 if at_word_start && self.depth == 0 => {
                    let end = line[i..]
                        .iter()
                        .position(|b| b.is_ascii_whitespace() || b"{}();".contains(b))
                        .map_or(line.len(), |n| i + n);
                    let word = std::str::from_utf8(&line[i..end]).ok();
                    self.ended |= word.and_then(result_of).is_some();
                    i = end;
                    continue;
                }
                _ => {
                    at_word_start = byte.is_ascii_whitespace();
                    i += 1;
                    continue;
                }
            }
            at_word_start = true;
            i += 1;
        }
    }
}

/// `[Name "value"...`: the start of a tag pair.
fn is_tag_pair(line: &[u8]) -> bool {
    let rest = line[1..].trim_ascii_start();
    let name = tag_name(line).len();
    name > 0 && rest[name..].trim_ascii_start().starts_with(b"\"")
}

/// The name of the tag pair `line` (`[Event "..."]`: `Event`).
fn tag_name(line: &[u8]) -> &[u8] {
    let rest = line[1..].trim_ascii_start();
    let name = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    &rest[..name]
}

const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

fn remove_byte_order_marks(line: &mut Vec<u8>) {
    if !line.contains(&BYTE_ORDER_MARK[0]) {
        return;
    }
    while let Some(at) = line
        .windows(BYTE_ORDER_MARK.len())
        .position(|w| w == BYTE_ORDER_MARK)
    {
        line.drain(at..at + BYTE_ORDER_MARK.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(text: &[u8]) -> Vec<GameText> {
        GameTexts::new(text).map(Result::unwrap).collect()
    }

    // ChessBase writes a blank line after `Event`: the tags after it are the
    // same game's, while a game of tags alone ends at the next `Event` or at
    // a tag it has already.
    #[test]
    fn a_blank_line_inside_the_tags_does_not_split_the_game() {
        let text = b"[Event \"a\"]\n\n[Site \"x\"]\n[White \"w\"]\n\n1. e4 *\n";
        let one = games(text);
        assert_eq!(one.len(), 1);
        assert!(one[0].text.contains("[White \"w\"]"));
        let tags_alone =
            b"[Event \"a\"]\n[White \"w\"]\n\n[Event \"b\"]\n\n[White \"v\"]\n\n[White \"u\"]\n";
        let three = games(tags_alone);
        assert_eq!(three.len(), 3);
        assert!(three[1].text.contains("[White \"v\"]"));
    }

    #[test]
    fn games_split_at_tags_after_movetext_not_in_comments() {
        let text = b"[Event \"a\"]\n\n1. e4 {[not a tag\n] } e5 *\n\n[Event \"b\"]\n[Site \"x\"]\n\n1. d4 *\n";
        let games = games(text);
        assert_eq!(games.len(), 2);
        assert!(games[1].text.starts_with("[Event \"b\"]"));
    }

    // PGN standard 8.2.5: comments do not nest, so a stray `{` inside one
    // does not swallow the games after it; braces in tag values and in `;`
    // comments open nothing.
    #[test]
    fn braces_open_comments_only_in_movetext_and_never_nest() {
        let text = b"[Event \"Blitz :-{\"]\n\n1. e4 ; a { brace\n1... e5 {x {y} 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
        assert_eq!(games(text).len(), 2);
    }

    #[test]
    fn tagless_games_and_tag_only_games_are_games() {
        assert_eq!(games(b"1. e4 e5 *\n\n1. d4 d5 *\n").len(), 2);
        assert_eq!(
            games(b"[Event \"a\"]\n[Result \"1-0\"]\n\n[Event \"b\"]\n[Result \"0-1\"]\n").len(),
            2
        );
        // A comment after the marker stays with its game.
        assert_eq!(games(b"1. e4 1-0\n{White won}\n").len(), 1);
    }

    // PGN standard 6: a line starting with `%` is ignored.
    #[test]
    fn escape_lines_and_stray_bracket_lines_belong_to_no_game() {
        let games = games(b"% exported\n[Event \"a\"]\n\n1. e4 *\n[/pgn]\n");
        assert_eq!(games.len(), 1);
        assert!(!games[0].text.contains('%') && !games[0].text.contains("/pgn"));
    }

    #[test]
    fn byte_order_marks_go_wherever_they_stand() {
        let games =
            games(b"\xEF\xBB\xBF[Event \"a\"]\n\n1. e4 *\n\xEF\xBB\xBF[Event \"b\"]\n\n1. d4 *\n");
        assert_eq!(games.len(), 2);
        assert!(games.iter().all(|g| g.text.starts_with("[Event")));
    }

    #[test]
    fn a_game_that_is_not_utf8_is_read_as_windows_1252_alone() {
        let games =
            games(b"[White \"R\xE9ti\"]\n\n1. e4 *\n\n[White \"R\xC3\xA9ti\"]\n\n1. e4 *\n");
        assert!(games[0].windows_1252 && games[0].text.contains("Réti"));
        assert!(!games[1].windows_1252 && games[1].text.contains("Réti"));
    }
}
