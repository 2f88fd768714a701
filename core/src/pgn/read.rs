//! Reading PGN: a stream split into the text of each game; each game read
//! by pgn-reader (tags, the SAN of each move) and its mainline tokens read
//! by our own tokenizer too, so that a token pgn-reader skips or misreads
//! is never lost: the replay falls back to kingpost's own parser for it.

use std::{io::BufRead, ops::ControlFlow};

use pgn_reader::{Reader, SanPlus, Visitor};

/// A mainline move token as written, with what pgn-reader read for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveToken {
    /// The token as written, annotations (`!`, `?`) removed.
    pub text: String,
    /// pgn-reader's reading of the token, when it agrees with the text.
    pub san: Option<SanPlus>,
    /// The time of a `{[%ts ...]}` comment after the move.
    pub timestamp: Option<String>,
}

/// A game as read, before the rules are applied.
#[derive(Clone, Debug, Default)]
pub struct RawGame {
    /// Tag pairs in file order, values unescaped.
    pub tags: Vec<(String, String)>,
    pub moves: Vec<MoveToken>,
    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
}

impl RawGame {
    /// The value of a tag, matched case-sensitively as PGN names are.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The texts of the games of a PGN stream, one at a time: a game ends
/// where a tag line follows movetext (outside comments).
#[derive(Debug)]
pub struct GameTexts<R> {
    input: R,
    pending: String,
    line: String,
}

impl<R: BufRead> GameTexts<R> {
    pub fn new(input: R) -> GameTexts<R> {
        GameTexts {
            input,
            pending: String::new(),
            line: String::new(),
        }
    }
}

impl<R: BufRead> Iterator for GameTexts<R> {
    type Item = std::io::Result<String>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut in_movetext = false;
        let mut comment_depth = 0usize;
        loop {
            if self.line.is_empty() {
                match self.input.read_line(&mut self.line) {
                    Ok(0) => {
                        let game = std::mem::take(&mut self.pending);
                        return (!game.trim().is_empty()).then_some(Ok(game));
                    }
                    Ok(_) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
            let trimmed = self.line.trim_start();
            if trimmed.starts_with('[') && comment_depth == 0 && in_movetext {
                // The line stays for the next game.
                return Some(Ok(std::mem::take(&mut self.pending)));
            }
            if !trimmed.is_empty() && !trimmed.starts_with('[') && !trimmed.starts_with('%') {
                in_movetext = true;
            }
            for ch in self.line.chars() {
                match ch {
                    '{' => comment_depth += 1,
                    '}' => comment_depth = comment_depth.saturating_sub(1),
                    _ => {}
                }
            }
            self.pending.push_str(&self.line);
            self.line.clear();
        }
    }
}

/// Reads one game's text.
pub fn read_game(text: &str) -> RawGame {
    let mut collector = Collector;
    let read = Reader::new(text.as_bytes())
        .read_game(&mut collector)
        .ok()
        .flatten();
    let (tags, sans) = read.unwrap_or_default();
    let (mut moves, result) = tokenize(movetext_of(text));
    // pgn-reader's SANs stand where they agree with the tokens in order;
    // where it skipped or misread one, the token is read by kingpost alone.
    let mut sans = sans.into_iter().peekable();
    for token in &mut moves {
        let agreed = SanPlus::from_ascii(token.text.as_bytes()).ok();
        if agreed.is_some() && sans.peek() == agreed.as_ref() {
            token.san = sans.next();
        }
    }
    RawGame {
        tags,
        moves,
        result,
    }
}

/// The tags and the mainline SANs, as pgn-reader reads them.
struct Collector;

type Collected = (Vec<(String, String)>, Vec<SanPlus>);

impl Visitor for Collector {
    type Tags = Vec<(String, String)>;
    type Movetext = Collected;
    type Output = Collected;

    fn begin_tags(&mut self) -> ControlFlow<Collected, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: pgn_reader::RawTag<'_>,
    ) -> ControlFlow<Collected> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Collected, Collected> {
        ControlFlow::Continue((tags, Vec::new()))
    }

    fn san(&mut self, movetext: &mut Collected, san: SanPlus) -> ControlFlow<Collected> {
        movetext.1.push(san);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Collected) -> Collected {
        movetext
    }
}

/// The text after the tag section.
fn movetext_of(text: &str) -> &str {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') || trimmed.trim().is_empty() {
            offset += line.len();
        } else {
            break;
        }
    }
    &text[offset..]
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// The mainline move tokens of movetext and its result marker: comments,
/// variations, NAGs, move numbers and escaped lines set aside.
fn tokenize(movetext: &str) -> (Vec<MoveToken>, Option<String>) {
    let mut moves: Vec<MoveToken> = Vec::new();
    let mut chars = movetext.char_indices().peekable();
    let mut at_line_start = true;
    while let Some((start, ch)) = chars.next() {
        match ch {
            // An escaped line, or a comment to the end of the line.
            '%' if at_line_start => skip_line(&mut chars),
            ';' => skip_line(&mut chars),
            '{' => {
                let mut comment = String::new();
                for (_, c) in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    comment.push(c);
                }
                if let (Some(ts), Some(last)) = (timestamp_in(&comment), moves.last_mut()) {
                    last.timestamp = Some(ts);
                }
            }
            '(' => {
                let mut depth = 1;
                while depth > 0 {
                    match chars.next() {
                        Some((_, '(')) => depth += 1,
                        Some((_, ')')) => depth -= 1,
                        Some((_, '{')) => {
                            for (_, c) in chars.by_ref() {
                                if c == '}' {
                                    break;
                                }
                            }
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = start + ch.len_utf8();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || matches!(c, '{' | '(' | ')' | ';') {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                let word = &movetext[start..end];
                if RESULTS.contains(&word) {
                    return (moves, Some(word.to_owned()));
                }
                if let Some(text) = move_of(word) {
                    moves.push(MoveToken {
                        text,
                        san: None,
                        timestamp: None,
                    });
                }
            }
        }
        at_line_start = matches!(ch, '\n' | '%' | ';');
    }
    (moves, None)
}

fn skip_line(chars: &mut impl Iterator<Item = (usize, char)>) {
    for (_, c) in chars.by_ref() {
        if c == '\n' {
            break;
        }
    }
}

/// The move in a word: move numbers (`12.`, `12...`, glued `1.e4`), NAGs
/// (`$1`) and annotation marks (`!?`) removed.
fn move_of(word: &str) -> Option<String> {
    if word.starts_with('$') {
        return None;
    }
    let without_number = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if without_number.len() < word.len() && without_number.starts_with('.') {
        without_number.trim_start_matches('.')
    } else {
        word
    };
    let text = rest.trim_end_matches(['!', '?']);
    (!text.is_empty()).then(|| text.to_owned())
}

/// The time in a `[%ts ...]` command of a comment.
fn timestamp_in(comment: &str) -> Option<String> {
    let rest = &comment[comment.find("[%ts ")? + 5..];
    Some(rest[..rest.find(']')?].trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_comments_variations_numbers_and_nags() {
        let (moves, result) =
            tokenize("1. e4 {best} e5 (1... c5 2. Nf3 {x}) 2.Nf3 $1 Nc6!? ; rest\n3. Bb5 1-0");
        let texts: Vec<&str> = moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        assert_eq!(result.as_deref(), Some("1-0"));
    }

    #[test]
    fn timestamps_attach_to_the_move_before() {
        let (moves, _) = tokenize("1. e4 {[%ts 2026-11-30T12:00:00Z]} 1... e5 *");
        assert_eq!(moves[0].timestamp.as_deref(), Some("2026-11-30T12:00:00Z"));
        assert_eq!(moves[1].timestamp, None);
    }

    #[test]
    fn tokens_pgn_reader_skips_are_kept() {
        let game = read_game("[Variant \"Switching\"]\n\n1. Sb8c8 Ng1-f3 Nf3xe5e4 *\n");
        let texts: Vec<&str> = game.moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["Sb8c8", "Ng1-f3", "Nf3xe5e4"]);
        assert!(
            game.moves.iter().all(|m| m.san.is_none()),
            "pgn-reader read none of them as written"
        );
        assert_eq!(game.tag("Variant"), Some("Switching"));
    }

    #[test]
    fn games_split_at_tags_after_movetext() {
        let text = "[Event \"a\"]\n\n1. e4 {[not a tag\n] } e5 *\n\n[Event \"b\"]\n[Site \"x\"]\n\n1. d4 *\n";
        let games: Vec<String> = GameTexts::new(text.as_bytes())
            .map(Result::unwrap)
            .collect();
        assert_eq!(games.len(), 2);
        assert!(games[1].starts_with("[Event \"b\"]"));
        assert_eq!(read_game(&games[0]).moves.len(), 2);
    }
}
