//! What the two players of a game say to each other, with a move or alone,
//! during the game or after it; and whom a player has muted: a muted
//! account's messages and challenges no longer reach the one who muted it.
//! Messages are the players' own: never in a PGN, never shown to others.

use kingpost_core::Color;
use serde_json::json;

use crate::{
    clock::{HOUR, Millis, SECOND},
    db::{DbConnection, write_transaction},
    domain::{events, game::find_game},
    error::{ApiError, Code},
    models::{
        account,
        game::GameRow,
        message::{self, NewMessage},
    },
    notify::{Outbox, game_signal},
    stored::{AccountId, GameId},
    views::{EventKind, MessageList, MessageView, MuteList, Timestamp},
};

/// The longest message, in characters.
pub const MOST_CHARS: usize = 500;
/// Messages an account may write in an hour, across its games.
pub const PER_HOUR: i64 = 30;
/// Messages a page unless the reader asks another number, and the most.
pub const PAGE: i64 = 100;
pub const MAX_PAGE: i64 = 200;

/// `text` as a message: without the blanks around it, 1 to
/// [`MOST_CHARS`] characters, no control character but line breaks and tabs.
pub fn checked(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    let refuse = |detail: String| ApiError::invalid(Code::InvalidMessage, detail);
    if text.is_empty() {
        return Err(refuse("a message says something: it is empty".to_owned()));
    }
    if text.chars().count() > MOST_CHARS {
        return Err(refuse(format!(
            "a message is at most {MOST_CHARS} characters"
        )));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(refuse("a message holds no control characters".to_owned()));
    }
    Ok(text.to_owned())
}

/// A message stored, and whether its reader is to be told of it.
#[derive(Debug)]
pub struct Said {
    pub view: MessageView,
    /// The opponent, unless they muted the author.
    pub tell: Option<AccountId>,
}

impl Said {
    /// The data of the `message_received` event.
    pub fn event_data(&self) -> serde_json::Value {
        json!({ "message": self.view })
    }
}

/// Stores `text` (already [`checked`]) from `author`, a player of `game`,
/// at the game's ply: refused past the hourly rate.
pub fn store(
    conn: &mut DbConnection,
    game: &GameRow,
    author: &AccountId,
    text: &str,
    now: Millis,
) -> Result<Said, ApiError> {
    let color = game.color_of(author).ok_or(ApiError::NotAPlayer)?;
    let author_name = match color {
        Color::White => &game.white_name,
        Color::Black => &game.black_name,
    };
    if message::count_since(conn, author, now - HOUR)? >= PER_HOUR {
        // Free again when the hour's first message leaves the window.
        let first = message::first_since(conn, author, now - HOUR)?.unwrap_or(now);
        let wait = (first + HOUR - now).max(SECOND);
        return Err(ApiError::RateLimited {
            retry_after: u64::try_from(wait).map_or(1, |ms| ms.div_ceil(SECOND as u64)),
            detail: format!("at most {PER_HOUR} messages an hour; nothing was changed"),
        });
    }
    let id = message::insert(
        conn,
        &NewMessage {
            game_id: &game.id,
            author_id: author,
            ply: game.ply,
            body: text,
            created_at: now,
        },
    )?;
    let opponent = game.player(!color).cloned();
    let tell = match opponent {
        Some(opponent) if !message::mutes(conn, &opponent, author)? => Some(opponent),
        _ => None,
    };
    let view = MessageView {
        id,
        from: author_name.clone(),
        ply: game.ply,
        text: text.to_owned(),
        created_at: Timestamp(now),
    };
    Ok(Said { view, tell })
}

/// Says `text` in game `game_id`, without a move: any time, as long as
/// the caller plays in it.
pub fn say(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
    author: &AccountId,
    text: &str,
) -> Result<MessageView, ApiError> {
    let text = checked(text)?;
    write_transaction(conn, |conn| {
        let game = find_game(conn, game_id)?;
        let said = store(conn, &game, author, &text, now)?;
        // The game's streams send it as a chat line.
        outbox.push(game_signal(game_id));
        if let Some(to) = &said.tell {
            let data = said.event_data();
            events::record(
                conn,
                outbox,
                now,
                to,
                EventKind::MessageReceived,
                Some(game_id),
                data,
            )?;
        }
        Ok(said.view)
    })
}

/// A game's messages after `after`, for one of its players; a muted
/// opponent's are left out.
pub fn list(
    conn: &mut DbConnection,
    reader: &AccountId,
    game_id: &GameId,
    after: i64,
    limit: i64,
) -> Result<MessageList, ApiError> {
    let game = find_game(conn, game_id)?;
    let color = game.color_of(reader).ok_or(ApiError::NotAPlayer)?;
    let opponent = game.player(!color).cloned();
    let hidden = match opponent {
        Some(opponent) if message::mutes(conn, reader, &opponent)? => Some(opponent),
        _ => None,
    };
    let rows = message::of_game(conn, game_id, hidden.as_ref(), after, limit)?;
    let messages = rows
        .into_iter()
        .map(|(row, from)| MessageView {
            id: row.id,
            from,
            ply: row.ply,
            text: row.body,
            created_at: Timestamp(row.created_at),
        })
        .collect();
    Ok(MessageList { messages })
}

/// The id after which `reader`, a player of game `game_id`, has read no
/// message of it yet: its last message's, 0 if none.
pub fn last_id(
    conn: &mut DbConnection,
    reader: &AccountId,
    game_id: &GameId,
) -> Result<i64, ApiError> {
    let game = find_game(conn, game_id)?;
    game.color_of(reader).ok_or(ApiError::NotAPlayer)?;
    Ok(message::last_id(conn, game_id)?.unwrap_or(0))
}

/// Mutes `username` for `account`.
pub fn mute(
    conn: &mut DbConnection,
    account: &AccountId,
    username: &str,
    now: Millis,
) -> Result<(), ApiError> {
    let muted = account::find_by_username(conn, username)?
        .ok_or_else(|| ApiError::NotFound(format!("account `{username}`")))?;
    if muted.id == *account {
        return Err(ApiError::invalid(
            Code::InvalidUsername,
            "you cannot mute yourself",
        ));
    }
    Ok(message::mute(conn, account, &muted.id, now)?)
}

/// Unmutes `username` for `account` (nothing when it was not muted).
pub fn unmute(
    conn: &mut DbConnection,
    account: &AccountId,
    username: &str,
) -> Result<(), ApiError> {
    if let Some(muted) = account::find_by_username(conn, username)? {
        message::unmute(conn, account, &muted.id)?;
    }
    Ok(())
}

/// The accounts `account` has muted.
pub fn muted(conn: &mut DbConnection, account: &AccountId) -> Result<MuteList, ApiError> {
    Ok(MuteList {
        muted: message::muted_by(conn, account)?,
    })
}

/// Whether `account` has muted `other`: a challenge from them is refused.
pub fn has_muted(
    conn: &mut DbConnection,
    account: &AccountId,
    other: &AccountId,
) -> Result<bool, ApiError> {
    Ok(message::mutes(conn, account, other)?)
}
