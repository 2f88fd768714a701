//! Account deletions carried through: the steps that follow a deletion
//! (its games under way ended, its collections deleted), each its own
//! change, so that a player with hundreds of games never holds back the
//! others' moves.

use crate::{
    clock::Millis, domain::account_deletion, error::ApiError, state::AppState, stored::AccountId,
};

/// How long a deletion is left to the request that asked for it before
/// the sweep takes it over as interrupted.
const LEFT_TO_ITS_REQUEST: Millis = 10 * 60_000;

/// Deletions the sweep finishes at once.
const FINISHED_AT_ONCE: i64 = 10;

/// Ends the deleted account's games under way, then deletes its
/// collections, and notes the deletion done.
pub async fn finish(state: &AppState, account_id: &AccountId) -> Result<(), ApiError> {
    loop {
        loop {
            let (id, now) = (account_id.clone(), state.clock.now());
            let more = state
                .write(move |conn, outbox| account_deletion::resign_step(conn, outbox, &id, now))
                .await?;
            if !more {
                break;
            }
        }
        let id = account_id.clone();
        let done = state
            .bulk_step(move |conn, yielding| account_deletion::finish_step(conn, &id, yielding))
            .await?;
        if done {
            return Ok(());
        }
    }
}

/// Finishes the deletions that their requests left (the server stopped
/// meanwhile); how many.
pub async fn finish_interrupted(state: &AppState) -> Result<usize, ApiError> {
    let before = state.clock.now() - LEFT_TO_ITS_REQUEST;
    let pending = state
        .read_own(move |conn| account_deletion::interrupted(conn, before, FINISHED_AT_ONCE))
        .await?;
    for id in &pending {
        finish(state, id).await?;
    }
    Ok(pending.len())
}
