//! BOT accounts: engines that play through lichess's Bot API. An account
//! that has never played may become one, for good; a BOT then plays
//! through the Bot API and kingpost's own, never the Board API, and a
//! player who is not a BOT never through the Bot API (as on lichess). Games
//! with a BOT are casual, so BOTs have no rating and stand on no
//! leaderboard: an engine's results would move the players' pools.

use crate::{
    db::{DbConnection, write_transaction},
    error::{ApiError, Code},
    models::{account, game},
    stored::AccountId,
};

/// lichess's two surfaces for playing: each is for one kind of account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// `/api/board/...`: players, through a board client.
    Board,
    /// `/api/bot/...`: BOT accounts.
    Bot,
}

/// Refuses `account_id` on a surface that is not for its kind.
pub fn check_surface(
    conn: &mut DbConnection,
    account_id: &AccountId,
    surface: Surface,
) -> Result<(), ApiError> {
    let bot = is_bot(conn, account_id)?;
    let refusal = match (surface, bot) {
        (Surface::Board, true) => {
            "a BOT account plays through the Bot API (/api/bot/...), not the Board API"
        }
        (Surface::Bot, false) => {
            "the Bot API is for BOT accounts: an account that has never played becomes one with POST /api/bot/account/upgrade"
        }
        _ => return Ok(()),
    };
    Err(ApiError::Refused {
        code: Code::WrongAccountKind,
        detail: refusal.to_owned(),
    })
}

/// Whether `account_id` is a BOT.
pub fn is_bot(conn: &mut DbConnection, account_id: &AccountId) -> Result<bool, ApiError> {
    let account =
        account::find(conn, account_id)?.ok_or_else(|| ApiError::NotFound("account".to_owned()))?;
    Ok(account.bot)
}

/// Makes `account_id` a BOT, for good: only an account that has never
/// played a game. A BOT already is one.
pub fn upgrade(conn: &mut DbConnection, account_id: &AccountId) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        if is_bot(conn, account_id)? {
            return Ok(());
        }
        if game::has_played(conn, account_id)? {
            return Err(ApiError::Refused {
                code: Code::HasPlayed,
                detail: "only an account that has never played a game may become a BOT".to_owned(),
            });
        }
        account::make_bot(conn, account_id)?;
        Ok(())
    })
}

/// Refuses a rated game between `first` and `second` if either is a BOT.
pub fn check_rated(
    conn: &mut DbConnection,
    rated: bool,
    first: &AccountId,
    second: &AccountId,
) -> Result<(), ApiError> {
    if rated && (is_bot(conn, first)? || (second != first && is_bot(conn, second)?)) {
        return Err(ApiError::Refused {
            code: Code::RatedWithBot,
            detail: "games with a BOT are casual: send the challenge unrated".to_owned(),
        });
    }
    Ok(())
}
