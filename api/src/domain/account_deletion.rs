//! Deleting an account: its games stay with their opponents, shown as
//! played by `[deleted]`; everything else that was its own goes.
//!
//! [`delete`] does, in one transaction, what must hold at once: the account
//! can no longer sign in or act (its name, password and tokens are gone),
//! nothing reaches it (its address, settings, subscriptions, webhooks and
//! mutes are gone), nobody can start a game with it (its challenges are
//! closed, its tournaments and teams left). What may take long follows in steps, each
//! its own transaction: its games under way resigned ([`resign_step`]),
//! then its collections deleted ([`finish_step`]). A deletion interrupted
//! between steps is finished by the sweep.

use crate::{
    clock::Millis,
    db::{DbConnection, Yield, write_transaction},
    domain::{challenge, collections, game, teams, tournament},
    error::{ApiError, Code},
    models::{
        challenge as challenge_rows, collection, deletion, game as game_rows,
        tournament as tournament_rows,
    },
    notify::{Outbox, account_signal, token_signal},
    stored::AccountId,
};

/// Games a step of [`resign_step`] ends: each is its own change of a
/// game, a few milliseconds; a step stays short for the players waiting.
const GAMES_AT_ONCE: usize = 20;

/// Deletes the account now, leaving its games under way and its
/// collections to the steps that follow. `404` for an account already
/// deleted.
pub fn delete(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    account_id: &AccountId,
    now: Millis,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        // Teams first, as a member leaving takes them (team, then its
        // matches' games and tournaments); games are locked before the
        // account's row, in the order a move takes them (game, tournament,
        // then account), so that a deletion and a move or a leaving member
        // wait for each other rather than deadlock.
        teams::forget(conn, outbox, now, account_id)?;
        for id in tournament_rows::entered_by(conn, account_id)? {
            match tournament::lifecycle::leave(conn, outbox, now, &id, account_id) {
                Ok(()) => {}
                // Finished or left meanwhile: nothing to leave.
                Err(ApiError::Refused {
                    code: Code::NotJoined | Code::TournamentClosed,
                    ..
                }) => {}
                Err(other) => return Err(other),
            }
        }
        for row in challenge_rows::open_involving(conn, account_id)? {
            let closed = if row.challenger_id == *account_id {
                challenge::cancel(conn, outbox, now, &row.id, account_id)
            } else {
                challenge::decline(conn, outbox, now, &row.id, account_id)
            };
            match closed {
                Ok(()) | Err(ApiError::ChallengeClosed) => {}
                Err(other) => return Err(other),
            }
        }
        if !deletion::mark_deleted(conn, account_id, now)? {
            return Err(ApiError::NotFound("account".to_owned()));
        }
        deletion::rename_in_games(conn, account_id)?;
        deletion::erase_private(conn, account_id)?;
        deletion::insert_pending(conn, account_id, now)?;
        // Its streams and long polls wake, to find their token gone.
        outbox.push(token_signal(account_id));
        outbox.push(account_signal(account_id));
        Ok(())
    })
}

/// Ends some of a deleted account's games under way: aborted where an
/// abort is allowed (before both sides have moved, outside tournaments),
/// resigned otherwise. Whether games are left.
pub fn resign_step(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    account_id: &AccountId,
    now: Millis,
) -> Result<bool, ApiError> {
    let under_way = game_rows::under_way_ids(conn, account_id)?;
    for game_id in under_way.iter().take(GAMES_AT_ONCE) {
        let ended = match game::act(conn, outbox, now, game_id, account_id, game::Action::Abort) {
            Err(ApiError::Refused {
                code: Code::AbortRefused,
                ..
            }) => game::act(conn, outbox, now, game_id, account_id, game::Action::Resign),
            other => other,
        };
        match ended {
            // Ended meanwhile, by the opponent or on time.
            Ok(_) | Err(ApiError::GameFinished) => {}
            Err(other) => return Err(other),
        }
    }
    Ok(under_way.len() > GAMES_AT_ONCE)
}

/// Deletes some of a deleted account's collections (with the games only
/// they hold); once none is left, its ratings and events, and the deletion
/// is done. Whether it is done.
pub fn finish_step(
    conn: &mut DbConnection,
    account_id: &AccountId,
    yielding: &dyn Yield,
) -> Result<bool, ApiError> {
    if let Some(first) = collection::of_owner(conn, account_id, true)?.first() {
        match collections::delete_step(conn, account_id, &first.id, yielding) {
            // Deleted meanwhile by another instance's sweep.
            Ok(_) | Err(ApiError::NotFound(_)) => return Ok(false),
            Err(other) => return Err(other),
        }
    }
    write_transaction(conn, |conn| {
        if !game_rows::under_way_ids(conn, account_id)?.is_empty() {
            // A game that began as the account was deleted: the next
            // resignation steps end it first.
            return Ok(false);
        }
        deletion::erase_history(conn, account_id)?;
        deletion::remove_pending(conn, account_id)?;
        Ok(true)
    })
}

/// Deletions with work left that were asked for before `before`: those a
/// request no longer carries on.
pub fn interrupted(
    conn: &mut DbConnection,
    before: Millis,
    limit: i64,
) -> Result<Vec<AccountId>, ApiError> {
    Ok(deletion::pending(conn, before, limit)?)
}
