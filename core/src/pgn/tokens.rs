//! The mainline move tokens of movetext, read as real files write them:
//! move numbers with or without their dots, standalone `...`, `e.p.`
//! suffixes, NAGs and their glyphs (`$1`, `!?`, `+-`, `±`), results in
//! Unicode (`½-½`, `1–0`); comments, variations and escape lines set aside.

use super::read::MoveToken;

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

/// The mainline move tokens of movetext and its termination marker.
pub fn tokenize(movetext: &str) -> (Vec<MoveToken>, Option<&'static str>) {
    let mut moves: Vec<MoveToken> = Vec::new();
    let mut chars = movetext.char_indices().peekable();
    let mut at_line_start = true;
    while let Some((start, ch)) = chars.next() {
        match ch {
            // An escaped line, or a comment to the end of the line.
            '%' if at_line_start => skip_line(&mut chars),
            ';' => skip_line(&mut chars),
            '{' => {
                let comment = skip_comment(&mut chars);
                if let (Some(ts), Some(last)) = (timestamp_in(&comment), moves.last_mut()) {
                    last.timestamp = Some(ts);
                }
            }
            '(' => skip_variation(&mut chars),
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
                if let Some(result) = result_of(word) {
                    return (moves, Some(result));
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

/// The text of a comment, up to the first `}`: comments do not nest.
fn skip_comment(chars: &mut impl Iterator<Item = (usize, char)>) -> String {
    chars.map(|(_, c)| c).take_while(|c| *c != '}').collect()
}

/// Skips a variation, its own variations and comments with it.
fn skip_variation(chars: &mut impl Iterator<Item = (usize, char)>) {
    let mut depth = 1;
    while depth > 0 {
        match chars.next() {
            Some((_, '(')) => depth += 1,
            Some((_, ')')) => depth -= 1,
            Some((_, '{')) => {
                skip_comment(chars);
            }
            Some((_, ';')) => skip_line(chars),
            Some(_) => {}
            None => break,
        }
    }
}

/// The move in a word: move numbers (`12.`, `12...`, glued `1.e4`),
/// standalone dots, NAGs and their glyphs, annotation marks (`!?`) and an
/// `e.p.` or `ep` suffix removed. Null moves stay, for the replay to refuse
/// them by name.
fn move_of(word: &str) -> Option<String> {
    if word.starts_with('$') {
        return None;
    }
    let without_number = word.trim_start_matches(|c: char| c.is_ascii_digit());
    if without_number.is_empty() {
        return None;
    }
    let rest = if without_number.len() < word.len() && without_number.starts_with('.') {
        without_number.trim_start_matches('.')
    } else {
        word
    };
    if NULL_MOVES.contains(&rest) {
        return Some(rest.to_owned());
    }
    let rest = rest.trim_end_matches(['!', '?']);
    if rest.chars().all(is_glyph) || rest == "e.p." || rest == "ep" {
        return None;
    }
    let text = rest
        .strip_suffix("e.p.")
        .or_else(|| rest.strip_suffix("ep"))
        .unwrap_or(rest);
    Some(text.to_owned())
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
        let (moves, result) = tokenize(movetext);
        (moves.into_iter().map(|m| m.text).collect(), result)
    }

    #[test]
    fn tokens_skip_comments_variations_numbers_and_nags() {
        let (moves, result) = texts(
            "1. e4 {best} e5 (1... c5 ; x ) y\n 2. Nf3 {x}) 2.Nf3 $1 Nc6!? ; rest\n3. Bb5 1-0",
        );
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        assert_eq!(result, Some("1-0"));
    }

    #[test]
    fn real_files_spellings_are_read() {
        let (moves, result) =
            texts("1. e4 {c} 1. ... e5 2. Nf3 ... Nc6 3. exf6 e.p. +- exd6ep ± ½-½");
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6", "exf6", "exd6"]);
        assert_eq!(result, Some("1/2-1/2"));
        assert_eq!(texts("1. e4 1–0").1, Some("1-0"));
        assert_eq!(texts("1. e4 0—1").1, Some("0-1"));
    }

    #[test]
    fn null_moves_stay_to_be_refused() {
        assert_eq!(texts("1. e4 -- 2. d4 Z0 *").0, ["e4", "--", "d4", "Z0"]);
    }

    #[test]
    fn timestamps_attach_to_the_move_before() {
        let (moves, _) = tokenize("1. e4 {[%ts 2026-11-30T12:00:00Z]} 1... e5 *");
        assert_eq!(moves[0].timestamp.as_deref(), Some("2026-11-30T12:00:00Z"));
        assert_eq!(moves[1].timestamp, None);
    }
}
