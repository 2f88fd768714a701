//! The game as clients read it, and the answer to a move.

use kingpost_core::Color;

use crate::{
    clock::{Millis, SECOND, rfc3339},
    db::{DbConnection, write_transaction},
    domain::{openings, ratings, vacation},
    error::ApiError,
    models::{
        account::{self, Account},
        game::GameStatus,
    },
    notify::Outbox,
    stored::GameId,
    views::{
        GameActions, GamePlayerView, GameState, GameView, LegalMoveView, MoveAnswer, MoveView,
        RightsView, Side, SideActions, Termination, Timestamp,
    },
};

use super::{
    Loaded,
    actions::{bot_abort_refusal, game_abort_refusal},
    clock, effective_deadline, find_game,
    loaded::player_pair,
    moves::{PlayedMove, played_moves},
    start_of,
    sweep::is_due,
    variant_name,
};

/// The game as clients read it, after ending it on time if it is due: any
/// read shows a lost game as lost.
pub fn view(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    game_id: &GameId,
    now: Millis,
) -> Result<GameView, ApiError> {
    if let Some(view) = view_unless_due(conn, game_id, now)? {
        return Ok(view);
    }
    write_transaction(conn, |conn| {
        Loaded::read_for_update(conn, game_id)?.expire_if_due(conn, outbox, now)
    })?;
    let game = Loaded::from_row(find_game(conn, game_id)?)?;
    view_of(conn, game, now)
}

/// The game as clients read it, without writing: `None` when it is due to
/// be ended on time first, which only `view` does.
pub fn view_unless_due(
    conn: &mut DbConnection,
    game_id: &GameId,
    now: Millis,
) -> Result<Option<GameView>, ApiError> {
    let found = find_game(conn, game_id)?;
    if is_due(&found, now) {
        return Ok(None);
    }
    view_of(conn, Loaded::from_row(found)?, now).map(Some)
}

/// The view of a game as read, or as a change stored it.
pub fn view_of(conn: &mut DbConnection, game: Loaded, now: Millis) -> Result<GameView, ApiError> {
    let moves = played_moves(&game.row)?;
    let ratings = if game.row.rated {
        ratings::of_game(conn, &game.row.id)?
    } else {
        None
    };
    Ok(GameView {
        state: state_of(conn, game, now)?,
        ratings,
        moves: moves.into_iter().map(MoveView::from).collect(),
    })
}

/// The answer to a move, from the game as the move stored it: no move
/// list to read, only the moves the request played.
pub fn move_answer(
    conn: &mut DbConnection,
    mut game: Loaded,
    now: Millis,
) -> Result<MoveAnswer, ApiError> {
    let played = std::mem::take(&mut game.new_moves);
    Ok(MoveAnswer {
        state: state_of(conn, game, now)?,
        played: played.into_iter().map(MoveView::from).collect(),
    })
}

impl From<PlayedMove> for MoveView {
    fn from(m: PlayedMove) -> MoveView {
        MoveView {
            ply: m.ply,
            uci: m.uci,
            san: m.san,
            played_at: m.played_at.map(Timestamp),
        }
    }
}

fn state_of(conn: &mut DbConnection, mut game: Loaded, now: Millis) -> Result<GameState, ApiError> {
    // The players' accounts, for vacations, unless the change read them;
    // an imported game has none.
    let accounts = match (game.accounts.take(), player_pair(&game.row)) {
        (Some(read), _) => read,
        (None, Some((first, second))) => account::find_pair(conn, first, second)?,
        (None, None) => Vec::new(),
    };
    let account_of = |color| {
        let id = game.row.player(color)?;
        accounts.iter().find(|a| a.id == *id).cloned()
    };
    let (white, black) = (account_of(Color::White), account_of(Color::Black));
    let player = |name: &str, account: &Option<Account>| GamePlayerView {
        username: name.to_owned(),
        on_vacation: account
            .as_ref()
            .is_some_and(|a| vacation::is_on_vacation(a, now)),
        bot: account.as_ref().is_some_and(|a| a.bot),
    };
    let started = game.row.status == GameStatus::Started;
    let claimable_draw = if started {
        let occurrences = game.occurrences()?;
        game.pos.claimable_draw(occurrences).map(Termination::from)
    } else {
        None
    };
    let pos = &game.pos;
    let legal_moves = if started {
        LegalMoveView::all(pos)
    } else {
        Vec::new()
    };
    let mover = match pos.turn() {
        Color::White => white.as_ref(),
        Color::Black => black.as_ref(),
    };
    let deadline = effective_deadline(&game.row, mover, now).filter(|_| started);
    let draw_offer = game
        .row
        .draw_offer_by
        .as_ref()
        .and_then(|id| game.row.color_of(id))
        .map(Side::from);
    let actions = if started {
        // The game's own refusal is read once (it asks the tournaments);
        // a BOT's, per side, from the accounts read already.
        let game_may = game_abort_refusal(conn, &game.row)?.is_none();
        let abort = |color| game_may && bot_abort_refusal(&game.row, color, &accounts).is_none();
        let aborts = [abort(Color::White), abort(Color::Black)];
        let turn = Side::from(pos.turn());
        let side = |side: Side| SideActions {
            play: turn == side,
            resign: true,
            abort: aborts[usize::from(side == Side::Black)],
            offer_draw: draw_offer.is_none(),
            answer_draw: draw_offer.is_some_and(|by| by != side),
            withdraw_draw: draw_offer == Some(side),
            claim_draw: turn == side && claimable_draw.is_some(),
        };
        GameActions {
            white: side(Side::White),
            black: side(Side::Black),
        }
    } else {
        GameActions::default()
    };
    let row = &game.row;
    let rules = row.rules.0;
    let start = start_of(row);
    Ok(GameState {
        id: row.id.to_string(),
        rules: row.rules,
        variant: variant_name(rules, &start).to_owned(),
        start,
        opening: openings::of_row(row),
        white: player(&row.white_name, &white),
        black: player(&row.black_name, &black),
        initial_fen: row.initial_fen.clone(),
        fen: row.current_fen.clone(),
        ply: row.ply,
        turn: Side::from(pos.turn()),
        status: row.status,
        rated: row.rated,
        result: row.result,
        termination: row.termination,
        check: pos.is_check(),
        rights: RightsView::of(pos),
        days_per_move: row.days_per_move,
        clock: clock::of_row(row)?.map(|spec| clock::view(spec, row, pos.turn(), deadline, now)),
        vacation_allowed: row.vacation_allowed,
        deadline: deadline.map(Timestamp),
        time_left_seconds: deadline.map(|d| (d - now).max(0) / SECOND),
        draw_offer,
        claimable_draw,
        actions,
        legal_moves,
        created_at: Timestamp(row.created_at),
        updated_at: Timestamp(row.updated_at),
    })
}

/// The entity tag of a game's state: it changes with every ply, every
/// change of status or offer, and when a player's vacation starts or ends
/// (which moves the deadline without changing the game's row).
pub fn etag(state: &GameState) -> String {
    let stamp: String = rfc3339(state.updated_at.0)
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let vacations = u8::from(state.white.on_vacation) | u8::from(state.black.on_vacation) << 1;
    if vacations == 0 {
        format!("\"{}-{stamp}\"", state.ply)
    } else {
        format!("\"{}-{stamp}-v{vacations}\"", state.ply)
    }
}
