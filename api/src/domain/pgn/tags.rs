//! The tags of an imported game, as its PGN writes them and as its import
//! key reads them.

use kingpost_core::{
    Position, Rules, Start,
    pgn::{ReplayedGame, rules_for_variant, rules_tags},
};

use crate::{
    domain::{game::corrupt, openings},
    error::ApiError,
    models::game::GameRow,
};

/// Whether `text` is a date as the PGN standard writes one: `YYYY.MM.DD`,
/// each part digits or all `?`.
pub(super) fn is_pgn_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    let part = |text: &str, len: usize| {
        text.len() == len
            && (text.bytes().all(|b| b.is_ascii_digit()) || text.bytes().all(|b| b == b'?'))
    };
    matches!(parts.as_slice(), [y, m, d] if part(y, 4) && part(m, 2) && part(d, 2))
}

/// The seven-tag roster, in the PGN standard's order.
pub(super) const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Tags kingpost writes itself, from the game as replayed, whatever the
/// source said.
const COMPUTED: [&str; 6] = [
    "Variant",
    "SetUp",
    "FEN",
    "StartPosition",
    "PlyCount",
    "Result",
];

/// The tag that says where today's automatic draws would have ended an
/// imported game that was played on past them (docs/spec/rules.md §2.5):
/// `ply 16, 1/2-1/2 fivefold_repetition`.
pub(super) const RULES_WOULD_HAVE_ENDED: &str = "RulesWouldHaveEnded";

/// An imported game's source tags as kept: as written, but for the note of
/// where today's rules would have ended the game, which the replay writes
/// anew, in the place the source had it (so that a game exported and
/// imported again is unchanged).
pub(super) fn tags_as_stored(
    written: &[(String, String)],
    replayed: &ReplayedGame,
) -> Vec<(String, String)> {
    let mut note = replayed
        .rules_would_have_ended
        .map(|(ply, outcome)| format!("ply {ply}, {} {}", outcome.result(), outcome.reason()));
    let mut tags = Vec::with_capacity(written.len() + 1);
    for (name, value) in written {
        if name != RULES_WOULD_HAVE_ENDED {
            tags.push((name.clone(), value.clone()));
        } else if let Some(note) = note.take() {
            tags.push((name.clone(), note));
        }
    }
    if let Some(note) = note {
        tags.push((RULES_WOULD_HAVE_ENDED.to_owned(), note));
    }
    tags
}

/// The tag that keeps the id a game's source gave it: `GameId` is this
/// server's.
pub(super) const SOURCE_GAME_ID: &str = "SourceGameId";

/// The tags of an imported game's source, the first of each name only.
pub(super) fn source_tags(row: &GameRow) -> Result<Vec<(String, String)>, ApiError> {
    let Some(json) = &row.source_tags else {
        return Ok(Vec::new());
    };
    let tags: Vec<(String, String)> = serde_json::from_str(json).map_err(|e| corrupt(row, e))?;
    Ok(first_of_each_name(tags))
}

pub(super) fn first_of_each_name(mut tags: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    tags.retain(|(name, _)| seen.insert(name.clone()));
    tags
}

/// The tags of an imported game: its source's (`source`, the first of each
/// name), in the source's order after the seven-tag roster, with the rules,
/// start and move count as replayed.
pub(super) fn imported_tags(
    row: &GameRow,
    source: &[(String, String)],
    rules: Rules,
    start: &Start,
    initial: &Position,
    result: &str,
    plies: usize,
) -> Vec<(String, String)> {
    let from_source = |name: &str| {
        source
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let chess960 = from_source("Variant")
        .and_then(|variant| rules_for_variant(Some(&variant)).ok())
        .is_some_and(|(_, chess960)| chess960);
    let mut tags: Vec<(String, String)> = ROSTER
        .iter()
        .map(|&name| {
            let value = match name {
                "White" => row.white_name.clone(),
                "Black" => row.black_name.clone(),
                "Result" => result.to_owned(),
                "Date" => from_source(name).unwrap_or_else(|| "????.??.??".to_owned()),
                _ => from_source(name).unwrap_or_else(|| "?".to_owned()),
            };
            (name.to_owned(), value)
        })
        .collect();
    tags.extend(
        rules_tags(rules, start, initial, chess960)
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v)),
    );
    // `GameId` is this server's id of the game: the source's own is kept,
    // in its place, as `SourceGameId` (unless the source has one already,
    // as an export of this server's read back does).
    let has_source_id = from_source(SOURCE_GAME_ID).is_some();
    tags.extend(
        source
            .iter()
            .filter(|(name, _)| {
                !ROSTER.contains(&name.as_str()) && !COMPUTED.contains(&name.as_str())
            })
            .filter_map(|(name, value)| match name.as_str() {
                "GameId" if has_source_id => None,
                "GameId" => Some((SOURCE_GAME_ID.to_owned(), value.clone())),
                _ => Some((name.clone(), value.clone())),
            }),
    );
    // The source's own names win: the tables may name a line otherwise.
    if let Some(opening) = openings::of_row(row).filter(|_| from_source("ECO").is_none()) {
        tags.push(("ECO".to_owned(), opening.eco));
        if from_source("Opening").is_none() {
            tags.push(("Opening".to_owned(), opening.name));
        }
    }
    if from_source("TerminationReason").is_none() {
        tags.extend(
            row.termination
                .map(|reason| ("TerminationReason".to_owned(), reason.key().to_owned())),
        );
    }
    tags.push(("PlyCount".to_owned(), plies.to_string()));
    tags.push(("GameId".to_owned(), row.id.to_string()));
    tags
}
