//! Conditional moves: while the opponent is to move, a player stores lines
//! "if they play X, I reply Y, then if they play Z, I reply W". When the
//! opponent's move matches a line, the reply is played at once, in the same
//! transaction; the lines that no longer match are dropped. Only their owner
//! ever reads them.

use std::collections::HashMap;

use kingpost_core::{MoveError, Position};

use crate::{
    clock::Millis,
    db::{DbConnection, write_transaction},
    domain::game::{Loaded, find_game, find_game_for_update, position_of},
    error::{ApiError, Code},
    models::{conditional, game::GameStatus},
    stored::{AccountId, GameId},
    views::{Conditionals, StoredConditionals},
};

/// The most lines, and plies per line, a player may store in a game.
const MAX_LINES: usize = 64;
const MAX_PLIES: usize = 40;

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::invalid(Code::InvalidConditionals, detail)
}

/// Stores `lines` for `account_id` after checking every move against the
/// rules from the current position; returns them in canonical UCI.
pub fn store(
    conn: &mut DbConnection,
    now: Millis,
    game_id: &GameId,
    account_id: &AccountId,
    request: Conditionals,
) -> Result<StoredConditionals, ApiError> {
    write_transaction(conn, |conn| {
        // Locked: a move for this position committing meanwhile would not
        // see these lines, and they would outlive it.
        let row = find_game_for_update(conn, game_id)?;
        if row.color_of(account_id).is_none() {
            return Err(ApiError::NotAPlayer);
        }
        if row.status != GameStatus::Started {
            return Err(ApiError::GameFinished);
        }
        if row.to_move_id.as_deref() == Some(account_id) {
            return Err(ApiError::Refused {
                code: Code::NotOpponentsTurn,
                detail: "conditional moves are for the opponent's turn: it is yours".to_owned(),
            });
        }
        if request.lines.len() > MAX_LINES {
            return Err(invalid(format!("at most {MAX_LINES} lines")));
        }
        let start = position_of(&row)?;
        let mut canonical = Vec::new();
        // Each sequence of opponent's moves must have one reply.
        let mut replies: HashMap<Vec<String>, String> = HashMap::new();
        for (i, line) in request.lines.iter().enumerate() {
            if line.is_empty() || line.len() % 2 != 0 || line.len() > MAX_PLIES {
                return Err(invalid(format!(
                    "line {}: a line pairs each opponent's move with a reply, up to {MAX_PLIES} plies",
                    i + 1
                )));
            }
            let mut pos = start.clone();
            let mut ucis = Vec::new();
            for (ply, text) in line.iter().enumerate() {
                if pos.outcome().is_some() {
                    return Err(invalid(format!(
                        "line {}: the game is over before `{text}`",
                        i + 1
                    )));
                }
                let m = pos
                    .parse_move(text)
                    .map_err(|e| invalid(refusal(i, &line[..ply], &e)))?;
                ucis.push(pos.uci(&m));
                pos.play_unchecked(m);
                if ply % 2 == 1 {
                    let asked = ucis[..ply].to_vec();
                    let reply = ucis[ply].clone();
                    if replies
                        .insert(asked, reply.clone())
                        .is_some_and(|other| other != reply)
                    {
                        return Err(invalid(format!(
                            "line {}: two different replies to the same moves",
                            i + 1
                        )));
                    }
                }
            }
            canonical.push(ucis);
        }
        let stored = Conditionals { lines: canonical };
        let json = serde_json::to_string(&stored).map_err(|e| ApiError::Internal(e.to_string()))?;
        conditional::store(conn, game_id, account_id, &json, now)?;
        Ok(with_san(&start, stored.lines))
    })
}

/// Why move `before.len() + 1` of line `index` was refused, in words that
/// name the moves before it rather than a FEN (which would fill a phone's
/// screen): "line 1: `Nf6` is not a legal move after e5 Nf3".
fn refusal(index: usize, before: &[String], error: &MoveError) -> String {
    let place = if before.is_empty() {
        "now".to_owned()
    } else {
        format!("after {}", before.join(" "))
    };
    let line = index + 1;
    match error {
        MoveError::Syntax { text } => {
            format!("line {line}: `{text}` is not a move in UCI or SAN notation")
        }
        MoveError::Illegal { text, .. } => {
            format!("line {line}: `{text}` is not a legal move {place}")
        }
        MoveError::Ambiguous {
            text, candidates, ..
        } => format!(
            "line {line}: `{text}` is ambiguous {place}: it could be {}",
            candidates.join(" or ")
        ),
    }
}

/// `lines` (canonical UCI from `start`), with each move in SAN too; a move
/// that no longer reads (it cannot, as lines are checked when stored and
/// follow the game) keeps its UCI.
fn with_san(start: &Position, lines: Vec<Vec<String>>) -> StoredConditionals {
    let san = lines
        .iter()
        .map(|line| {
            let mut pos = start.clone();
            line.iter()
                .map(|uci| match pos.parse_uci(uci) {
                    Ok(m) => {
                        let san = pos.san(&m);
                        pos.play_unchecked(m);
                        san
                    }
                    Err(_) => uci.clone(),
                })
                .collect()
        })
        .collect();
    StoredConditionals { lines, san }
}

/// The caller's own lines in a game.
pub fn read(
    conn: &mut DbConnection,
    game_id: &GameId,
    account_id: &AccountId,
) -> Result<StoredConditionals, ApiError> {
    let row = find_game(conn, game_id)?;
    if row.color_of(account_id).is_none() {
        return Err(ApiError::NotAPlayer);
    }
    let stored: Conditionals = match conditional::find(conn, game_id, account_id)? {
        Some(json) => serde_json::from_str(&json)
            .map_err(|e| ApiError::Internal(format!("conditionals: {e}")))?,
        None => Conditionals::default(),
    };
    Ok(with_san(&position_of(&row)?, stored.lines))
}

pub fn remove(
    conn: &mut DbConnection,
    game_id: &GameId,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        // Locked, as every writer of lines is: the game's mark that lines
        // are held is written with them.
        let row = find_game_for_update(conn, game_id)?;
        if row.color_of(account_id).is_none() {
            return Err(ApiError::NotAPlayer);
        }
        conditional::remove(conn, game_id, account_id)?;
        Ok(())
    })
}

/// After a move in `game`: if the player now to move stored a line
/// beginning with that move, plays the line's reply and keeps the lines
/// that continue it; otherwise drops the lines.
pub(crate) fn answer(
    conn: &mut DbConnection,
    game: &mut Loaded,
    now: Millis,
) -> Result<(), ApiError> {
    let Some(owner) = game.row.to_move_id.clone() else {
        return Ok(());
    };
    // Read with the game under its lock: on almost every move, no lines.
    if !game.row.holds_conditionals {
        return Ok(());
    }
    let Some(json) = conditional::find(conn, &game.row.id, &owner)? else {
        return Ok(());
    };
    let stored: Conditionals = serde_json::from_str(&json)
        .map_err(|e| ApiError::Internal(format!("conditionals: {e}")))?;
    let played = game
        .new_moves
        .last()
        .map(|m| m.uci.clone())
        .unwrap_or_default();
    let following: Vec<&Vec<String>> = stored
        .lines
        .iter()
        .filter(|line| line[0] == played)
        .collect();
    let reply = following.first().map(|line| line[1].clone());
    let rest: Vec<Vec<String>> = following
        .iter()
        .filter(|line| line.len() > 2)
        .map(|line| line[2..].to_vec())
        .collect();
    game.row.holds_conditionals = conditional::remove(conn, &game.row.id, &owner)?;
    let Some(reply) = reply else {
        return Ok(());
    };
    // Checked when stored; checked again, as the position is read afresh.
    let Ok(m) = game.pos.parse_uci(&reply) else {
        return Ok(());
    };
    game.apply(conn, m, now)?;
    if game.row.status != GameStatus::Started {
        return Ok(());
    }
    if !rest.is_empty() {
        let json = serde_json::to_string(&Conditionals { lines: rest })
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        conditional::store(conn, &game.row.id, &owner, &json, now)?;
        game.row.holds_conditionals = true;
    }
    // The opponent may hold lines that answer this reply in turn.
    answer(conn, game, now)
}
