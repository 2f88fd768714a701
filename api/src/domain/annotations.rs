//! Annotations: an imported game's comments, NAGs and variations, kept as
//! its file gave them, and players' annotations of their finished games.
//! Both go into the game's PGN.

use std::collections::{BTreeMap, HashMap};

use kingpost_core::{
    Position, packed,
    pgn::{LineMove, Notes, ReplayedGame},
};
use serde::{Deserialize, Serialize};

use crate::{
    clock::Millis,
    db::{DbConnection, write_transaction},
    domain::game::{corrupt, find_game, moves::initial_position, readable_game},
    error::{ApiError, Code},
    models::{
        annotation::{self, AnnotationRow, NotesRow},
        game::GameStatus,
    },
    stored::{AccountId, GameId},
    views::{
        AnnotateRequest, GameAnnotations, MoveNotes, PlayerAnnotation, Timestamp, VariationMove,
    },
};

/// A game's annotations as PGN writes them: the comment before the first
/// move and the notes of each annotated mainline move, by ply. The stored
/// form of an imported game's notes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameNotes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    #[serde(default)]
    pub plies: BTreeMap<u32, Notes<LineMove>>,
}

impl GameNotes {
    /// The notes of a replayed game, `None` when it has none.
    pub fn of_replay(game: &ReplayedGame) -> Option<GameNotes> {
        let plies: BTreeMap<u32, Notes<LineMove>> = (1..)
            .zip(&game.moves)
            .filter(|(_, m)| !m.notes.is_empty())
            .map(|(ply, m)| (ply, m.notes.clone()))
            .collect();
        (game.comment.is_some() || !plies.is_empty()).then(|| GameNotes {
            comment: game.comment.clone(),
            plies,
        })
    }

    /// The notes of a ply (1 is the first move).
    pub fn of_ply(&self, ply: usize) -> Option<&Notes<LineMove>> {
        self.plies.get(&u32::try_from(ply).ok()?)
    }

    /// Adds a player's annotation: their NAGs, and their comment marked as
    /// theirs on a line of its own after those before it.
    fn add(&mut self, ply: i32, author: &str, comment: Option<&str>, nags: &[u8]) {
        let target = if ply == 0 {
            &mut self.comment
        } else {
            let notes = self.plies.entry(ply as u32).or_default();
            for nag in nags {
                notes.add_nag(*nag);
            }
            &mut notes.comment
        };
        if let Some(text) = comment {
            let signed = format!("{author}: {text}");
            match target {
                Some(before) => *before = format!("{before}\n{signed}"),
                None => *target = Some(signed),
            }
        }
    }
}

/// The row that stores an imported game's notes.
pub fn notes_row(game_id: &GameId, notes: &GameNotes) -> NotesRow {
    NotesRow {
        game_id: game_id.clone(),
        notes: serde_json::to_string(notes).expect("notes serialise"),
    }
}

/// An imported game's notes as stored. Variations nest as deep as an
/// import keeps them (`MAX_VARIATION_DEPTH`, three JSON levels each),
/// deeper than `serde_json`'s guard against hostile input, which stored notes
/// are not.
fn parse_notes(row: &NotesRow) -> Result<GameNotes, ApiError> {
    let mut reader = serde_json::Deserializer::from_str(&row.notes);
    reader.disable_recursion_limit();
    let read = serde::Deserialize::deserialize(&mut reader).and_then(|notes| {
        reader.end()?;
        Ok(notes)
    });
    read.map_err(|e| {
        ApiError::Internal(format!(
            "game {}: stored notes unreadable: {e}",
            row.game_id
        ))
    })
}

fn parse_nags(row: &AnnotationRow) -> Vec<u8> {
    row.nags
        .split_ascii_whitespace()
        .filter_map(|nag| nag.parse().ok())
        .collect()
}

/// The annotations of these games as their PGN writes them: each imported
/// game's notes with the players' annotations added.
pub fn for_pgn(
    conn: &mut DbConnection,
    ids: &[&GameId],
) -> Result<HashMap<GameId, GameNotes>, ApiError> {
    let mut by_game = HashMap::new();
    for row in annotation::notes_of(conn, ids)? {
        by_game.insert(row.game_id.clone(), parse_notes(&row)?);
    }
    for (row, author) in annotation::of_games(conn, ids)? {
        by_game.entry(row.game_id.clone()).or_default().add(
            row.ply,
            &author,
            row.comment.as_deref(),
            &parse_nags(&row),
        );
    }
    Ok(by_game)
}

/// The variations that replace a move played from `before`, each move with
/// the position after it, for a reader that knows no rules.
fn lines(
    before: &Position,
    variations: &[Vec<LineMove>],
) -> Result<Vec<Vec<VariationMove>>, String> {
    variations
        .iter()
        .map(|line| {
            let mut pos = before.clone();
            line.iter()
                .map(|m| {
                    let variations = lines(&pos, &m.notes.variations)?;
                    let played = pos
                        .parse_move(&m.uci)
                        .map_err(|e| format!("{}: {e}", m.uci))?;
                    pos.play_unchecked(played);
                    Ok(VariationMove {
                        uci: m.uci.clone(),
                        san: m.san.clone(),
                        fen: pos.fen(),
                        starting_comment: m.notes.starting_comment.clone(),
                        nags: m.notes.nags.clone(),
                        comment: m.notes.comment.clone(),
                        variations,
                    })
                })
                .collect()
        })
        .collect()
}

fn player_annotation(row: AnnotationRow, author: String) -> PlayerAnnotation {
    PlayerAnnotation {
        ply: row.ply,
        nags: parse_nags(&row),
        author,
        comment: row.comment,
        updated_at: Timestamp(row.updated_at),
    }
}

/// Everything written on a game `reader` may read beside its moves.
pub fn view(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    game_id: &GameId,
) -> Result<GameAnnotations, ApiError> {
    let row = readable_game(conn, reader, game_id)?;
    let file = match annotation::notes_of(conn, &[game_id])?.first() {
        Some(notes) => parse_notes(notes)?,
        None => GameNotes::default(),
    };
    let players = annotation::of_games(conn, &[game_id])?
        .into_iter()
        .map(|(row, author)| player_annotation(row, author))
        .collect();
    // The position before each annotated move, for its variations' own.
    let mut pos = initial_position(&row)?;
    let mut played = packed::unpack(&pos, &row.moves)
        .map_err(|e| corrupt(&row, e))?
        .into_iter();
    let mut moves = Vec::with_capacity(file.plies.len());
    let mut at = 1;
    for (ply, notes) in &file.plies {
        for m in played.by_ref().take((*ply - at) as usize) {
            pos.play_unchecked(m);
        }
        at = *ply;
        moves.push(MoveNotes {
            ply: *ply as i32,
            starting_comment: notes.starting_comment.clone(),
            nags: notes.nags.clone(),
            comment: notes.comment.clone(),
            variations: lines(&pos, &notes.variations).map_err(|e| corrupt(&row, e))?,
        });
    }
    Ok(GameAnnotations {
        comment: file.comment,
        moves,
        players,
    })
}

/// A ply as a path names it: a number, or no ply of any game (`422`, as
/// for a ply the game does not have).
pub fn ply_of(text: &str) -> Result<i32, ApiError> {
    text.parse().map_err(|_| {
        ApiError::invalid(
            Code::InvalidAnnotation,
            format!("`{text}` is not a ply: 0 is the game as a whole, 1 its first move"),
        )
    })
}

/// The longest comment a player may write on a ply.
pub const MAX_COMMENT_CHARS: usize = 2000;
/// The most NAGs a player may put on a ply.
pub const MAX_NAGS: usize = 8;

/// A player's annotation, checked: its comment (trimmed, none if empty)
/// and its NAGs, ascending.
fn checked(ply: i32, request: &AnnotateRequest) -> Result<(Option<String>, Vec<u8>), ApiError> {
    let invalid = |detail: &str| ApiError::invalid(Code::InvalidAnnotation, detail);
    let comment = request
        .comment
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    if let Some(comment) = comment {
        if comment.chars().count() > MAX_COMMENT_CHARS {
            return Err(invalid("a comment is at most 2000 characters"));
        }
        if comment.contains('}') {
            return Err(invalid(
                "a comment cannot hold `}`: it would end the PGN comment",
            ));
        }
        // Lines and tabs are text; other control characters (NUL, ESC...)
        // are not, and PGN readers and terminals would act on them.
        if comment
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            return Err(invalid(
                "a comment holds text: no control characters but line breaks and tabs",
            ));
        }
    }
    if request.nags.len() > MAX_NAGS {
        return Err(invalid("at most 8 NAGs on a ply"));
    }
    if ply == 0 && !request.nags.is_empty() {
        return Err(invalid("NAGs go on a move; ply 0 is the game as a whole"));
    }
    let mut nags = request
        .nags
        .iter()
        .map(|nag| u8::try_from(*nag).ok().filter(|n| *n > 0))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| invalid("a NAG is a number from 1 to 255"))?;
    nags.sort_unstable();
    nags.dedup();
    if comment.is_none() && nags.is_empty() {
        return Err(invalid(
            "an annotation needs a comment or a NAG; DELETE removes one",
        ));
    }
    Ok((comment.map(str::to_owned), nags))
}

/// Checks that `author` played `game_id`, that it has ended, and that it
/// has the ply `ply`.
fn annotatable(
    conn: &mut DbConnection,
    author: &AccountId,
    game_id: &GameId,
    ply: i32,
) -> Result<(), ApiError> {
    let game = find_game(conn, game_id)?;
    let player = [&game.white_id, &game.black_id]
        .into_iter()
        .any(|id| id.as_ref() == Some(author));
    if !player {
        return Err(ApiError::NotAPlayer);
    }
    if game.status == GameStatus::Started {
        return Err(ApiError::Refused {
            code: Code::GameUnderWay,
            detail: "a game is annotated once it has ended, not while it is played".into(),
        });
    }
    if !(0..=game.ply).contains(&ply) {
        return Err(ApiError::invalid(
            Code::InvalidAnnotation,
            format!("the game has plies 0 to {}", game.ply),
        ));
    }
    Ok(())
}

/// Writes `author`'s annotation of a ply of their finished game, replacing
/// theirs there before.
pub fn annotate(
    conn: &mut DbConnection,
    author: &AccountId,
    game_id: &GameId,
    ply: i32,
    request: &AnnotateRequest,
    now: Millis,
) -> Result<PlayerAnnotation, ApiError> {
    let (comment, nags) = checked(ply, request)?;
    write_transaction(conn, |conn| {
        annotatable(conn, author, game_id, ply)?;
        let row = AnnotationRow {
            game_id: game_id.clone(),
            ply,
            author_id: author.clone(),
            comment,
            nags: nags.iter().map(u8::to_string).collect::<Vec<_>>().join(" "),
            updated_at: now,
        };
        annotation::upsert(conn, &row)?;
        let username = crate::domain::accounts::find(conn, author)?.username;
        Ok(player_annotation(row, username))
    })
}

/// Removes `author`'s annotation of a ply.
pub fn remove(
    conn: &mut DbConnection,
    author: &AccountId,
    game_id: &GameId,
    ply: i32,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        annotatable(conn, author, game_id, ply)?;
        if annotation::delete(conn, game_id, ply, author)? {
            Ok(())
        } else {
            Err(ApiError::NotFound(format!("your annotation of ply {ply}")))
        }
    })
}
