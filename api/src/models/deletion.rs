//! What deleting an account removes, table by table, and the deletions
//! with work left. A deleted account keeps its row and its id in the games
//! it played, so that those games stay with their opponents.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection,
        schema::{
            account_deletions, account_emails, accounts, annotations, conditionals, deliveries,
            events, games, mail_outbox, mutes, notification_settings, password_resets, push_outbox,
            push_subscriptions, ratings, refresh_tokens, tokens, webhooks,
        },
    },
    names,
    stored::AccountId,
};

/// The name a deleted account's games, messages and standings show.
pub const DELETED_NAME: &str = "[deleted]";

/// Marks the account deleted: its name becomes [`DELETED_NAME`], its key
/// one no username can have (brackets and a space), so that the name is
/// free again, and its password none. Whether it was not deleted already.
pub fn mark_deleted(conn: &mut DbConnection, id: &AccountId, now: i64) -> QueryResult<bool> {
    diesel::update(
        accounts::table
            .filter(accounts::id.eq(id))
            .filter(accounts::deleted_at.is_null()),
    )
    .set((
        accounts::username.eq(DELETED_NAME),
        accounts::username_key.eq(format!("{DELETED_NAME} {id}")),
        accounts::password_hash.eq(""),
        accounts::vacation_since.eq(None::<i64>),
        accounts::deleted_at.eq(now),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// Shows [`DELETED_NAME`] for the account in every game it played.
pub fn rename_in_games(conn: &mut DbConnection, id: &AccountId) -> QueryResult<()> {
    // A search by the old name finds none of them.
    let deleted = names::key(DELETED_NAME);
    diesel::update(games::table.filter(games::white_id.eq(id)))
        .set((
            games::white_name.eq(DELETED_NAME),
            games::white_surname.eq(&deleted.surname),
            games::white_first.eq(&deleted.first),
        ))
        .execute(conn)?;
    diesel::update(games::table.filter(games::black_id.eq(id)))
        .set((
            games::black_name.eq(DELETED_NAME),
            games::black_surname.eq(&deleted.surname),
            games::black_first.eq(&deleted.first),
        ))
        .execute(conn)?;
    Ok(())
}

/// Removes what was the account's alone and serves it alone: its
/// credentials, its address and the mail to it, its notification settings,
/// push subscriptions and webhooks, its mutes (and others' of it), and its
/// notes and conditional moves on games.
pub fn erase_private(conn: &mut DbConnection, id: &AccountId) -> QueryResult<()> {
    diesel::delete(tokens::table.filter(tokens::account_id.eq(id))).execute(conn)?;
    diesel::delete(refresh_tokens::table.filter(refresh_tokens::account_id.eq(id)))
        .execute(conn)?;
    let hooks = webhooks::table
        .filter(webhooks::account_id.eq(id))
        .select(webhooks::id);
    diesel::delete(deliveries::table.filter(deliveries::webhook_id.eq_any(hooks))).execute(conn)?;
    diesel::delete(webhooks::table.filter(webhooks::account_id.eq(id))).execute(conn)?;
    let subscriptions = push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(id))
        .select(push_subscriptions::id);
    diesel::delete(push_outbox::table.filter(push_outbox::subscription_id.eq_any(subscriptions)))
        .execute(conn)?;
    diesel::delete(push_subscriptions::table.filter(push_subscriptions::account_id.eq(id)))
        .execute(conn)?;
    diesel::delete(mail_outbox::table.filter(mail_outbox::account_id.eq(id))).execute(conn)?;
    diesel::delete(account_emails::table.find(id)).execute(conn)?;
    diesel::delete(password_resets::table.filter(password_resets::account_id.eq(id)))
        .execute(conn)?;
    diesel::delete(notification_settings::table.find(id)).execute(conn)?;
    diesel::delete(mutes::table.filter(mutes::account_id.eq(id).or(mutes::muted_id.eq(id))))
        .execute(conn)?;
    diesel::delete(conditionals::table.filter(conditionals::account_id.eq(id))).execute(conn)?;
    diesel::delete(annotations::table.filter(annotations::author_id.eq(id))).execute(conn)?;
    Ok(())
}

/// Removes what the account's games left behind once they are all over:
/// its ratings (it leaves the leaderboards; its opponents' games keep the
/// ratings they were played at) and its events.
pub fn erase_history(conn: &mut DbConnection, id: &AccountId) -> QueryResult<()> {
    diesel::delete(ratings::table.filter(ratings::account_id.eq(id))).execute(conn)?;
    diesel::delete(events::table.filter(events::account_id.eq(id))).execute(conn)?;
    Ok(())
}

/// Notes a deletion with work left.
pub fn insert_pending(conn: &mut DbConnection, id: &AccountId, now: i64) -> QueryResult<()> {
    diesel::insert_into(account_deletions::table)
        .values((
            account_deletions::account_id.eq(id),
            account_deletions::requested_at.eq(now),
        ))
        .execute(conn)
        .map(|_| ())
}

/// Deletions with work left, asked for before `before`, oldest first.
pub fn pending(conn: &mut DbConnection, before: i64, limit: i64) -> QueryResult<Vec<AccountId>> {
    account_deletions::table
        .filter(account_deletions::requested_at.lt(before))
        .order((
            account_deletions::requested_at,
            account_deletions::account_id,
        ))
        .limit(limit)
        .select(account_deletions::account_id)
        .load(conn)
}

/// Notes that a deletion is done.
pub fn remove_pending(conn: &mut DbConnection, id: &AccountId) -> QueryResult<()> {
    diesel::delete(account_deletions::table.find(id))
        .execute(conn)
        .map(|_| ())
}
