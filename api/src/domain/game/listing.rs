//! The caller's games, a page at a time: ongoing soonest deadline first, or
//! finished latest first, after an opaque cursor.

use crate::{
    db::DbConnection,
    domain::cursor,
    error::ApiError,
    models::{
        account,
        game::{self as rows, GameRow, Listing},
    },
    stored::AccountId,
    views::{GameList, GameSummary, PlayerView, Side, Timestamp},
};

use super::{position_of, start_of, variant_name};

/// Games on a page unless the caller asks for another number.
pub const DEFAULT_PAGE: i64 = 50;
/// The most games on a page.
pub const MAX_PAGE: i64 = 100;

/// One page of `me`'s games of `listing`, after `after`, at most `limit`.
pub fn list(
    conn: &mut DbConnection,
    me: &AccountId,
    listing: Listing,
    after: Option<(i64, String)>,
    limit: i64,
) -> Result<GameList, ApiError> {
    let rows = rows::list(conn, me, listing, after, limit + 1)?;
    let my_turn_count = rows::count_my_turn(conn, me)?;
    let has_more = rows.len() as i64 > limit;
    let page: Vec<GameRow> = rows.into_iter().take(limit as usize).collect();
    let next_cursor = page.last().filter(|_| has_more).map(|last| {
        let key = match listing {
            Listing::Finished => last.updated_at,
            Listing::Ongoing | Listing::MyTurn => last.deadline_at.unwrap_or(i64::MAX),
        };
        cursor::encode(key, &last.id)
    });
    let players: Vec<&AccountId> = page
        .iter()
        .flat_map(|row| [row.white_id.as_ref(), row.black_id.as_ref()])
        .flatten()
        .collect();
    let bots = account::bots_among(conn, &players)?;
    let games = page
        .into_iter()
        .map(|row| summary(row, me, &bots))
        .collect::<Result<_, _>>()?;
    Ok(GameList {
        games,
        next_cursor,
        my_turn_count,
    })
}

/// `row` in a list of `me`'s games; `bots` are the BOT accounts among its players.
fn summary(row: GameRow, me: &AccountId, bots: &[AccountId]) -> Result<GameSummary, ApiError> {
    let is_bot = |id: &Option<AccountId>| id.as_ref().is_some_and(|id| bots.contains(id));
    let pos = position_of(&row)?;
    let start = start_of(&row);
    Ok(GameSummary {
        variant: variant_name(pos.rules(), &start).to_owned(),
        start,
        white: PlayerView {
            username: row.white_name.clone(),
            bot: is_bot(&row.white_id),
        },
        black: PlayerView {
            username: row.black_name.clone(),
            bot: is_bot(&row.black_id),
        },
        turn: Side::from(pos.turn()),
        status: row.status,
        my_turn: row.to_move_id.as_deref() == Some(me),
        deadline: row.deadline_at.map(Timestamp),
        updated_at: Timestamp(row.updated_at),
        fen: row.current_fen,
        id: row.id.into(),
        rules: row.rules,
        ply: row.ply,
        result: row.result,
        termination: row.termination,
    })
}
