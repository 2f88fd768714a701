//! What players ask of a game: moves, resignation, aborts, draw offers and
//! claims, each carried out in one transaction after the clock is checked.

use kingpost_core::Color;

use serde_json::json;

use crate::{
    clock::Millis,
    db::{DbConnection, write_transaction},
    domain::{conditionals, messages, tournament},
    error::{ApiError, Code},
    models::{
        account::{self, Account},
        game::{GameRow, GameStatus, Termination},
    },
    notify::Outbox,
    stored::{AccountId, GameId},
    views::{EventKind, Side},
};

use super::{
    Loaded, find_game,
    loaded::{draw, end, win},
};

/// What a player asks of a game: a move, or another action.
enum Request<'a> {
    Move(&'a Play),
    Act(Action),
}

/// Carries out `request` for `account_id` in one transaction: the game is
/// first ended on time if its deadline has passed (and that is kept, while
/// the request is refused). The game as stored, with the moves played.
/// Its span names the game, so that its statements' timings do too.
#[tracing::instrument(level = "debug", skip_all, fields(game = %game_id, account = %player.id))]
fn carry_out(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
    player: Player<'_>,
    request: Request<'_>,
) -> Result<Loaded, ApiError> {
    let account_id = player.id;
    write_transaction(conn, |conn| {
        let mut game = Loaded::read_for_update(conn, game_id)?;
        let color = game.row.color_of(account_id).ok_or(ApiError::NotAPlayer)?;
        if game.row.status != GameStatus::Started {
            return Ok(Err(ApiError::GameFinished));
        }
        if game.expire_if_due(conn, outbox, now)? {
            return Ok(Err(ApiError::GameFinished));
        }
        let offer = game.row.draw_offer_by.clone();
        let by_opponent = offer.is_some() && offer.as_ref() == game.row.player(!color);
        match request {
            Request::Move(&Play {
                ref text,
                ply,
                offer_draw,
                ref message,
            }) => {
                if ply != game.row.ply {
                    return Err(ApiError::StalePly {
                        sent: ply,
                        current: game.row.ply,
                    });
                }
                if game.pos.turn() != color {
                    return Err(ApiError::NotYourTurn);
                }
                let m = game.pos.parse_move(text)?;
                game.apply(conn, m, now)?;
                if let Some(text) = message {
                    let said = messages::store(conn, &game.row, account_id, text, now)?;
                    if said.tell.is_some() {
                        game.tell(!color, EventKind::MessageReceived, said.event_data());
                    }
                }
                if offer_draw && game.row.status == GameStatus::Started {
                    game.row.draw_offer_by = Some(account_id.to_owned());
                    game.tell(
                        !color,
                        EventKind::DrawOffered,
                        json!({"by": Side::from(color)}),
                    );
                }
                conditionals::answer(conn, &mut game, now)?;
            }
            Request::Act(Action::Resign) => win(&mut game.row, !color, Termination::Resignation),
            Request::Act(Action::Abort) => {
                let players = match game.row.white_id.as_ref().zip(game.row.black_id.as_ref()) {
                    Some((white, black)) => account::find_pair(conn, white, black)?,
                    None => Vec::new(),
                };
                if let Some(why) = abort_refusal(conn, &game.row, color, &players)? {
                    return Err(ApiError::Refused {
                        code: Code::AbortRefused,
                        detail: why.to_owned(),
                    });
                }
                end(
                    &mut game.row,
                    GameStatus::Aborted,
                    None,
                    Termination::Aborted,
                );
            }
            Request::Act(Action::OfferDraw) if by_opponent => {
                draw(&mut game.row, Termination::Agreement)
            }
            Request::Act(Action::OfferDraw) => {
                game.row.draw_offer_by = Some(account_id.to_owned());
                game.tell(
                    !color,
                    EventKind::DrawOffered,
                    json!({"by": Side::from(color)}),
                );
            }
            Request::Act(Action::AcceptDraw) | Request::Act(Action::DeclineDraw)
                if !by_opponent =>
            {
                return Err(no_offer("your opponent has"));
            }
            Request::Act(Action::AcceptDraw) => draw(&mut game.row, Termination::Agreement),
            Request::Act(Action::DeclineDraw) => game.row.draw_offer_by = None,
            Request::Act(Action::WithdrawDraw) if offer.as_deref() != Some(account_id) => {
                return Err(no_offer("you have"));
            }
            Request::Act(Action::WithdrawDraw) => game.row.draw_offer_by = None,
            Request::Act(Action::ClaimDraw) => claim_draw(&mut game, color)?,
        }
        game.row.updated_at = now;
        if !game.save(conn, outbox, now)? {
            // Changed since read, which the row lock leaves to SQLite
            // connections outside the writers' turn: say where it is now.
            return Err(ApiError::StalePly {
                sent: game.read_ply,
                current: find_game(conn, game_id)?.ply,
            });
        }
        if !account::is_recent(player.last_active_at, now) {
            account::touch(conn, account_id, now)?;
        }
        Ok(Ok(game))
    })?
}

/// Why the player of `color` cannot abort game `row` (under way), if they
/// cannot: once both sides have moved; never in a tournament (a withdrawal
/// there is the way out); and never a BOT against a player who is not one,
/// who has days for each move (lichess's bots abort a game whose opponent
/// has not moved within seconds). `players` are the game's accounts.
pub(super) fn abort_refusal(
    conn: &mut DbConnection,
    row: &GameRow,
    color: Color,
    players: &[Account],
) -> Result<Option<&'static str>, ApiError> {
    match bot_abort_refusal(row, color, players) {
        Some(why) => Ok(Some(why)),
        None => game_abort_refusal(conn, row),
    }
}

/// Why the player of `color` may not abort for being a BOT against a
/// player who is not one, if so. `players` are the game's accounts.
pub(super) fn bot_abort_refusal(
    row: &GameRow,
    color: Color,
    players: &[Account],
) -> Option<&'static str> {
    let is_bot = |color: Color| {
        row.player(color)
            .is_some_and(|id| players.iter().any(|a| a.id == *id && a.bot))
    };
    (is_bot(color) && !is_bot(!color)).then_some(
        "a BOT cannot abort a correspondence game against a player, who has days for each move: resign it",
    )
}

/// Why neither side may abort game `row`, if so: both have moved, or it is
/// a tournament's.
pub(super) fn game_abort_refusal(
    conn: &mut DbConnection,
    row: &GameRow,
) -> Result<Option<&'static str>, ApiError> {
    if row.ply >= 2 {
        return Ok(Some(
            "both sides have moved: the game can no longer be aborted",
        ));
    }
    if tournament::lifecycle::is_tournament_game(conn, &row.id)? {
        return Ok(Some(
            "a tournament's game cannot be aborted: resign it, or withdraw",
        ));
    }
    Ok(None)
}

fn no_offer(who: &str) -> ApiError {
    ApiError::Refused {
        code: Code::NoDrawOffer,
        detail: format!("{who} no draw offer standing"),
    }
}

/// A claim of threefold repetition or the 50-move rule by the side to move.
fn claim_draw(game: &mut Loaded, color: Color) -> Result<(), ApiError> {
    if game.pos.turn() != color {
        return Err(ApiError::NotYourTurn);
    }
    let occurrences = game.occurrences()?;
    match game.pos.claimable_draw(occurrences) {
        Some(reason) => draw(&mut game.row, reason.into()),
        None => {
            return Err(ApiError::Refused {
                code: Code::ClaimRefused,
                detail: game.pos.claim_refusal(occurrences),
            });
        }
    }
    Ok(())
}

/// Plays `text` (UCI or SAN) for `player` in game `game_id`, computed for
/// `ply`; with `offer_draw`, a draw offer goes with it. The write is
/// conditional on the ply read: of two racing requests one wins. The game
/// as stored, for [`move_answer`](super::view::move_answer).
pub fn play_move(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
    player: Player<'_>,
    play: &Play,
) -> Result<Loaded, ApiError> {
    carry_out(conn, outbox, now, game_id, player, Request::Move(play))
}

/// A player asking something of a game, and the account's last activity
/// as the request's token read it (`None`: not read): an activity under a
/// minute old is not written again, which spares a move a statement.
#[derive(Debug, Clone, Copy)]
pub struct Player<'a> {
    pub id: &'a AccountId,
    pub last_active_at: Option<Millis>,
}

/// A move as a player sends it.
#[derive(Debug, Clone)]
pub struct Play {
    /// UCI or SAN.
    pub text: String,
    /// The ply the move was computed for.
    pub ply: i32,
    /// Offer a draw with it.
    pub offer_draw: bool,
    /// A message to the opponent with it, already checked.
    pub message: Option<String>,
}

/// The actions on a game besides moves, by their route names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Resign,
    Abort,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    WithdrawDraw,
    ClaimDraw,
}

/// Carries out `action` for `account_id`: the game as stored, for
/// [`view_of`](super::view::view_of).
pub fn act(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
    account_id: &AccountId,
    action: Action,
) -> Result<Loaded, ApiError> {
    let player = Player {
        id: account_id,
        last_active_at: None,
    };
    carry_out(conn, outbox, now, game_id, player, Request::Act(action))
}
