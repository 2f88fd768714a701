//! Reading one game: its tags by pgn-reader, its movetext by our own
//! tokenizer, so that no token is skipped or misread: each move token is
//! read as SAN by shakmaty's reader (pgn-reader's), and the replay falls
//! back to kingpost's own parser for what that reader does not take.

use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};

use super::{
    GameText,
    notes::Notes,
    tokens::{Movetext, tokenize},
};

/// A mainline move token as written, with what pgn-reader read for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveToken {
    /// The token as written, annotations (`!`, `?`) removed.
    pub text: String,
    /// The token read as SAN by shakmaty's reader, where it reads it.
    pub san: Option<SanPlus>,
    /// The time of a `{[%ts ...]}` comment after the move.
    pub timestamp: Option<String>,
    /// Its comments, NAGs and variations, as written.
    pub notes: Notes<MoveToken>,
}

/// A game as read, before the rules are applied.
#[derive(Clone, Debug, Default)]
pub struct RawGame {
    /// Tag pairs in file order, values unescaped.
    pub tags: Vec<(String, String)>,
    /// The comment before the first move.
    pub comment: Option<String>,
    pub moves: Vec<MoveToken>,
    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<&'static str>,
    /// The game was read as Windows-1252, not being UTF-8.
    pub windows_1252: bool,
    /// Variations the reading left out (see [`Movetext::left_out`]).
    pub left_out_variations: usize,
}

/// What names a game in an import report: the tags of the seven-tag roster
/// that tell games apart, where the game has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameLabel {
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub round: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
}

impl std::fmt::Display for GameLabel {
    /// `White - Black, Event, Site, Date, round 3`, unknown values left out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known = |value: &Option<String>| {
            value
                .as_deref()
                .filter(|v| !v.trim_matches(['?', '.', '-', ' ']).is_empty())
                .map(str::to_owned)
        };
        let mut parts = Vec::new();
        if self.white.is_some() || self.black.is_some() {
            let name = |v: &Option<String>| known(v).unwrap_or_else(|| "?".to_owned());
            parts.push(format!("{} - {}", name(&self.white), name(&self.black)));
        }
        parts.extend(
            [&self.event, &self.site, &self.date]
                .into_iter()
                .filter_map(known),
        );
        parts.extend(known(&self.round).map(|round| format!("round {round}")));
        if parts.is_empty() {
            return f.write_str("(no tags)");
        }
        f.write_str(&parts.join(", "))
    }
}

impl RawGame {
    /// The tags that name the game.
    pub fn label(&self) -> GameLabel {
        let tag = |name| self.tag(name).map(str::to_owned);
        GameLabel {
            event: tag("Event"),
            site: tag("Site"),
            date: tag("Date"),
            round: tag("Round"),
            white: tag("White"),
            black: tag("Black"),
        }
    }

    /// The value of a tag, matched case-sensitively as PGN names are: the
    /// first, when a file repeats a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl GameText {
    /// Reads the game.
    pub fn read(&self) -> RawGame {
        RawGame {
            windows_1252: self.windows_1252,
            ..read_game(&self.text)
        }
    }
}

/// Reads one game's text.
pub fn read_game(text: &str) -> RawGame {
    let tags = Reader::new(text.as_bytes())
        .read_game(&mut TagCollector)
        .ok()
        .flatten()
        .unwrap_or_default();
    let Movetext {
        comment,
        moves,
        result,
        left_out,
    } = tokenize(movetext_of(text));
    RawGame {
        tags,
        comment,
        moves,
        result,
        windows_1252: false,
        left_out_variations: left_out,
    }
}

/// The tags, as pgn-reader reads them; the movetext is left to the
/// tokenizer, which reads every token (pgn-reader skips those that are not
/// SAN, such as a switch `Sb8c8` or long algebraic `Ng1-f3`).
struct TagCollector;

type Tags = Vec<(String, String)>;

impl Visitor for TagCollector {
    type Tags = Tags;
    type Movetext = Tags;
    type Output = Tags;

    fn begin_tags(&mut self) -> ControlFlow<Tags, Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Tags> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    /// The tags are all there is to read here: stop.
    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Tags, Tags> {
        ControlFlow::Break(tags)
    }

    fn end_game(&mut self, tags: Tags) -> Tags {
        tags
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_first_of_repeated_tags_counts() {
        let game = read_game("[Event \"first\"]\n[Event \"second\"]\n\n1. e4 *\n");
        assert_eq!(game.tag("Event"), Some("first"));
    }
}
