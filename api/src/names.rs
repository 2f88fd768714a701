//! Players' names as a search compares them: however a file spells a name
//! (`Carlsen, Magnus`, `Carlsen,M`, `CARLSEN`, `Réti` or `Reti`), its
//! surname and first given name, folded: accents off, lower case, spaces
//! collapsed. PGN writes a player `Surname, Given names`; a name without a
//! comma (a username) is all surname.

use unicode_normalization::{UnicodeNormalization, char::is_combining_mark};

/// A name's parts as searches compare them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameKey {
    pub surname: String,
    /// The first given name or initial, or empty.
    pub first: String,
}

/// `text` without accents, in lower case, its spaces collapsed.
fn fold(text: &str) -> String {
    let bare: String = text
        .nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect();
    bare.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key of the name `name`.
pub fn key(name: &str) -> NameKey {
    let folded = fold(name);
    match folded.split_once(',') {
        Some((surname, given)) => NameKey {
            surname: surname.trim().to_owned(),
            first: given
                .split(|c: char| c.is_whitespace() || c == '.')
                .find(|part| !part.is_empty())
                .unwrap_or_default()
                .to_owned(),
        },
        None => NameKey {
            surname: folded,
            first: String::new(),
        },
    }
}

impl NameKey {
    /// Whether a name of key `written` may be the player this key asks for:
    /// the same surname, and first given names that do not differ (either
    /// one unknown, the same, or one the other's initial). `models::search`
    /// asks the same in SQL.
    pub fn finds(&self, written: &NameKey) -> bool {
        let initial_of =
            |initial: &str, name: &str| initial.chars().count() == 1 && name.starts_with(initial);
        self.surname == written.surname
            && (self.first.is_empty()
                || written.first.is_empty()
                || self.first == written.first
                || initial_of(&self.first, &written.first)
                || initial_of(&written.first, &self.first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(asked: &str, written: &str) -> bool {
        key(asked).finds(&key(written))
    }

    #[test]
    fn a_surname_finds_every_spelling_of_its_player() {
        for written in [
            "Carlsen,M",
            "Carlsen, Magnus",
            "Carlsen,Magnus",
            "CARLSEN, M.",
            "Carlsen",
            "  carlsen ,  magnus ",
        ] {
            assert!(finds("Carlsen", written), "{written}");
            assert!(finds("Carlsen, Magnus", written), "{written}");
            assert!(finds("carlsen,m", written), "{written}");
        }
        assert!(!finds("Carlsen, Henrik", "Carlsen, Magnus"));
        assert!(!finds("Carlsen, H", "Carlsen,M"));
        assert!(!finds("Carl", "Carlsen, Magnus"));
        assert!(!finds("Magnus Carlsen", "Carlsen, Magnus"));
    }

    #[test]
    fn accents_and_case_do_not_count() {
        assert!(finds("Reti", "Réti, Richard"));
        assert!(finds("réti, r", "RETI,Richard"));
        assert!(finds("Nimzowitsch", "Nimzowitsch, Aron"));
        assert_eq!(key("Ljubojević, Ljubomir").surname, "ljubojevic");
        assert_eq!(key("alice").surname, "alice");
        assert_eq!(key("alice").first, "");
    }
}
