//! Searching the archive: the games that reached a position, in any rule
//! set, among the games a reader may see (played games, public
//! collections, the reader's own collections).

use std::collections::HashMap;

use kingpost_core::{Position, Rules, Start};

use crate::{
    db::DbConnection,
    domain::{collections, pgn::archived},
    error::{ApiError, Code},
    models::{
        game::{self, MoveRow},
        search::{self, Among, PositionQuery},
    },
    stored::{AccountId, CollectionId, GameId},
    views::{PositionHit, PositionSearch},
};

/// Hits on a page unless the caller asks for another number.
pub const DEFAULT_PAGE: i64 = 20;
/// The most hits on a page.
pub const MAX_PAGE: i64 = 100;

/// The position to search for: a FEN of the rule set, or the moves played
/// from the rule set's usual start.
#[derive(Debug, Clone)]
pub enum Target {
    Fen(String),
    Moves(Vec<String>),
}

/// Which games to search among.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Every game the reader may see.
    Visible,
    /// The reader's own played games and collections.
    Own,
    /// One collection the reader may see.
    Collection(CollectionId),
}

/// The position `target` names under `rules`, or why it names none.
pub fn position_of(rules: Rules, target: &Target) -> Result<Position, ApiError> {
    match target {
        Target::Fen(fen) => Position::from_fen(rules, fen)
            .map_err(|e| ApiError::invalid(Code::InvalidFen, e.to_string())),
        Target::Moves(moves) => {
            let mut pos = Position::from_start(rules, &Start::Standard)
                .map_err(|e| ApiError::invalid(Code::InvalidStart, e.to_string()))?;
            for (i, text) in moves.iter().enumerate() {
                let m = pos.parse_move(text).map_err(|e| {
                    ApiError::invalid(Code::InvalidQuery, format!("move {}: {e}", i + 1))
                })?;
                pos.play_unchecked(m);
            }
            Ok(pos)
        }
    }
}

/// One page of the games that reached `target` under `rules`, after the
/// game `after`.
pub fn positions(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    rules: Rules,
    target: &Target,
    scope: Scope,
    after: Option<&GameId>,
    limit: i64,
) -> Result<PositionSearch, ApiError> {
    let pos = position_of(rules, target)?;
    let among = match scope {
        Scope::Visible => Among::Visible,
        Scope::Own => Among::Own(reader.cloned().ok_or_else(|| {
            ApiError::Unauthorized("searching one's own games needs a token".to_owned())
        })?),
        Scope::Collection(id) => {
            collections::visible(conn, reader, &id)?;
            Among::Collection(id)
        }
    };
    let query = PositionQuery {
        key: pos.repetition_key() as i64,
        rules: rules.into(),
        reader: reader.cloned(),
        among,
    };
    let (hits, more) = search::reaching(conn, &query, after, limit)?;
    let ids: Vec<&GameId> = hits.iter().map(|(id, _)| id).collect();
    let mut rows: HashMap<GameId, _> = game::find_all(conn, &ids)?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    let mut moves: HashMap<GameId, Vec<MoveRow>> = HashMap::new();
    for m in game::moves_of_games(conn, &ids)? {
        moves.entry(m.game_id.clone()).or_default().push(m);
    }
    let next_cursor = hits.last().filter(|_| more).map(|(id, _)| id.to_string());
    let games = hits
        .iter()
        .filter_map(|(id, ply)| {
            let row = rows.remove(id)?;
            let played = moves.remove(id).unwrap_or_default();
            Some(archived(row, played).map(|game| PositionHit { ply: *ply, game }))
        })
        .collect::<Result<_, _>>()?;
    Ok(PositionSearch {
        fen: pos.fen(),
        games,
        next_cursor,
    })
}
