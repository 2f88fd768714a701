//! What a PGN writes beside its moves: comments, NAGs and variations, kept
//! as python-chess's game model keeps them, so that a study file read here
//! and written again is the same game to it.

use serde::{Deserialize, Serialize};

/// The annotations of one move: a comment before it (written only at the
/// start of a variation), its NAGs, the comment after it, and the
/// variations that replace it, each a line of moves `M`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound(serialize = "M: Serialize", deserialize = "M: Deserialize<'de>"))]
pub struct Notes<M> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_comment: Option<String>,
    /// Numeric annotation glyphs, ascending, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<Vec<M>>,
}

impl<M> Default for Notes<M> {
    fn default() -> Self {
        Notes {
            starting_comment: None,
            nags: Vec::new(),
            comment: None,
            variations: Vec::new(),
        }
    }
}

impl<M> Notes<M> {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.starting_comment.is_none()
            && self.nags.is_empty()
            && self.comment.is_none()
            && self.variations.is_empty()
    }

    /// Adds a NAG, keeping them ascending and each once (python-chess keeps
    /// a set).
    pub fn add_nag(&mut self, nag: u8) {
        if let Err(at) = self.nags.binary_search(&nag) {
            self.nags.insert(at, nag);
        }
    }

    /// Appends to the comment after the move: consecutive comments are one,
    /// joined by a space, as python-chess joins them.
    pub fn add_comment(&mut self, text: &str) {
        append_comment(&mut self.comment, text);
    }
}

/// Appends `text` to a comment, a space between, empty text adding nothing.
pub(crate) fn append_comment(comment: &mut Option<String>, text: &str) {
    if text.is_empty() {
        return;
    }
    match comment {
        Some(existing) => {
            existing.push(' ');
            existing.push_str(text);
        }
        None => *comment = Some(text.to_owned()),
    }
}

/// A move of a variation, checked under the rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineMove {
    pub uci: String,
    pub san: String,
    #[serde(flatten)]
    pub notes: Notes<LineMove>,
}

/// Variations nested deeper than this are left out of an import (and
/// counted in the report): real study files stay far below (the deepest
/// seen, 30), and the bound keeps the replay's recursion, a few kilobytes a
/// level, well within a thread's stack.
pub const MAX_VARIATION_DEPTH: usize = 256;

/// The NAG of a move suffix (`!`, `?`, `!!`, `??`, `!?`, `?!`), as the PGN
/// standard numbers them.
pub fn suffix_nag(suffix: &str) -> Option<u8> {
    Some(match suffix {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nags_stay_ascending_and_unique() {
        let mut notes = Notes::<LineMove>::default();
        for nag in [14, 1, 14, 3] {
            notes.add_nag(nag);
        }
        assert_eq!(notes.nags, [1, 3, 14]);
    }

    #[test]
    fn comments_join_with_a_space() {
        let mut notes = Notes::<LineMove>::default();
        notes.add_comment("");
        notes.add_comment("first");
        notes.add_comment("second");
        assert_eq!(notes.comment.as_deref(), Some("first second"));
    }

    #[test]
    fn the_stored_form_leaves_out_what_is_empty() {
        let line = LineMove {
            uci: "d2d4".into(),
            san: "d4".into(),
            notes: Notes {
                nags: vec![5],
                ..Notes::default()
            },
        };
        let json = serde_json::to_string(&line).unwrap();
        assert_eq!(json, r#"{"uci":"d2d4","san":"d4","nags":[5]}"#);
        assert_eq!(serde_json::from_str::<LineMove>(&json).unwrap(), line);
    }
}
