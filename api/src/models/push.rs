//! Push subscriptions, and the outbox of pushes to send.

use diesel::{
    IntoSql,
    prelude::*,
    sql_types::{BigInt, Integer, Text},
};

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{notification_settings, push_outbox, push_subscriptions},
    },
    models::{
        mail::{FAILED, PENDING, SENT},
        notification,
    },
    stored::AccountId,
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = push_subscriptions)]
pub struct SubscriptionRow {
    pub id: String,
    pub account_id: AccountId,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub created_at: i64,
}

/// Stores a subscription, replacing one of the same endpoint (a browser
/// that subscribes again, perhaps for another account).
pub fn insert(conn: &mut DbConnection, row: &SubscriptionRow) -> QueryResult<()> {
    if let Some(old) = push_subscriptions::table
        .filter(push_subscriptions::endpoint.eq(&row.endpoint))
        .select(SubscriptionRow::as_select())
        .first(conn)
        .optional()?
    {
        delete(conn, &old.id)?;
        count_subscriptions(conn, &old.account_id)?;
    }
    diesel::insert_into(push_subscriptions::table)
        .values(row)
        .execute(conn)?;
    count_subscriptions(conn, &row.account_id)
}

/// Removes a subscription and its pending pushes.
pub fn delete(conn: &mut DbConnection, id: &str) -> QueryResult<usize> {
    diesel::delete(push_outbox::table.filter(push_outbox::subscription_id.eq(id))).execute(conn)?;
    diesel::delete(push_subscriptions::table.find(id)).execute(conn)
}

pub fn of_account(
    conn: &mut DbConnection,
    account: &AccountId,
) -> QueryResult<Vec<SubscriptionRow>> {
    push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account))
        .order((push_subscriptions::created_at, push_subscriptions::id))
        .select(SubscriptionRow::as_select())
        .load(conn)
}

pub fn find(conn: &mut DbConnection, id: &str) -> QueryResult<Option<SubscriptionRow>> {
    push_subscriptions::table
        .find(id)
        .select(SubscriptionRow::as_select())
        .first(conn)
        .optional()
}

/// Writes into the account's settings (made with the defaults if it has
/// none) how many subscriptions it has, counted, not added to, so that
/// it is right whatever raced with it.
pub fn count_subscriptions(conn: &mut DbConnection, account: &AccountId) -> QueryResult<()> {
    let ensure = diesel::insert_into(notification_settings::table)
        .values(notification::defaults(account, 0))
        .on_conflict(notification_settings::account_id)
        .do_nothing();
    execute_natively(conn, ensure)?;
    let count = push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account))
        .count()
        .get_result::<i64>(conn)?;
    diesel::update(notification_settings::table.find(account))
        .set(notification_settings::push_subscriptions.eq(i32::try_from(count).unwrap_or(i32::MAX)))
        .execute(conn)
        .map(drop)
}

/// Queues a push of event `event_id` to each of the account's
/// subscriptions, in one statement.
pub fn queue(
    conn: &mut DbConnection,
    account: &AccountId,
    event_id: i64,
    now: i64,
) -> QueryResult<usize> {
    let rows = push_subscriptions::table
        .filter(push_subscriptions::account_id.eq(account))
        .select((
            push_subscriptions::id,
            event_id.into_sql::<BigInt>(),
            now.into_sql::<BigInt>(),
            PENDING.into_sql::<Text>(),
            0.into_sql::<Integer>(),
            now.into_sql::<BigInt>(),
        ));
    let insert = diesel::insert_into(push_outbox::table)
        .values(rows)
        .into_columns((
            push_outbox::subscription_id,
            push_outbox::event_id,
            push_outbox::created_at,
            push_outbox::status,
            push_outbox::attempts,
            push_outbox::next_attempt_at,
        ));
    execute_natively(conn, insert)
}

/// A push of the outbox.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = push_outbox)]
pub struct PushRow {
    pub id: i64,
    pub subscription_id: String,
    pub event_id: i64,
    pub attempts: i32,
    pub next_attempt_at: i64,
}

/// Leases up to `limit` pending pushes due by `now`, oldest due first,
/// until `until`, in one update: the pushes this caller won, their attempts
/// counted. The update's conditions are checked again on each row as it is
/// written, so that two instances leasing at once never both win one.
pub fn lease_due(
    conn: &mut DbConnection,
    now: i64,
    until: i64,
    limit: i64,
) -> QueryResult<Vec<PushRow>> {
    let due: Vec<i64> = push_outbox::table
        .filter(push_outbox::status.eq(PENDING))
        .filter(push_outbox::next_attempt_at.le(now))
        .order((push_outbox::next_attempt_at, push_outbox::id))
        .limit(limit)
        .select(push_outbox::id)
        .load(conn)?;
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let won: Vec<(i64, String, i64, i32, i64)> = diesel::update(
        push_outbox::table
            .filter(push_outbox::id.eq_any(&due))
            .filter(push_outbox::status.eq(PENDING))
            .filter(push_outbox::next_attempt_at.le(now)),
    )
    .set((
        push_outbox::next_attempt_at.eq(until),
        push_outbox::attempts.eq(push_outbox::attempts + 1),
    ))
    .returning((
        push_outbox::id,
        push_outbox::subscription_id,
        push_outbox::event_id,
        push_outbox::attempts,
        push_outbox::next_attempt_at,
    ))
    .get_results(conn)?;
    let mut won: Vec<PushRow> = won
        .into_iter()
        .map(
            |(id, subscription_id, event_id, attempts, next_attempt_at)| PushRow {
                id,
                subscription_id,
                event_id,
                attempts,
                next_attempt_at,
            },
        )
        .collect();
    won.sort_by_key(|push| push.id);
    Ok(won)
}

/// Ends pushes that will not be attempted: their `status`, and why.
pub fn mark(
    conn: &mut DbConnection,
    ids: &[i64],
    status: &str,
    why: Option<&str>,
    now: i64,
) -> QueryResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    diesel::update(push_outbox::table.filter(push_outbox::id.eq_any(ids)))
        .set((
            push_outbox::status.eq(status),
            push_outbox::last_error.eq(why),
            push_outbox::next_attempt_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}

/// The status of a push a newer one on its game replaced.
pub const SUPERSEDED: &str = "superseded";

/// Forgets up to `limit` of the pushes sent, superseded or given up
/// before `before`: how many.
pub fn prune(conn: &mut DbConnection, before: i64, limit: i64) -> QueryResult<usize> {
    let done: Vec<i64> = push_outbox::table
        .filter(push_outbox::status.eq_any([SENT, SUPERSEDED, FAILED]))
        .filter(push_outbox::next_attempt_at.lt(before))
        .select(push_outbox::id)
        .limit(limit)
        .load(conn)?;
    diesel::delete(push_outbox::table.filter(push_outbox::id.eq_any(&done))).execute(conn)
}

/// The subscriptions of these ids that still exist.
pub fn find_all(conn: &mut DbConnection, ids: &[&str]) -> QueryResult<Vec<SubscriptionRow>> {
    push_subscriptions::table
        .filter(push_subscriptions::id.eq_any(ids))
        .select(SubscriptionRow::as_select())
        .load(conn)
}

/// Records that these pushes were sent at `now`, in one statement.
pub fn mark_sent(conn: &mut DbConnection, ids: &[i64], now: i64) -> QueryResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    diesel::update(push_outbox::table.filter(push_outbox::id.eq_any(ids)))
        .set((
            push_outbox::status.eq(SENT),
            push_outbox::next_attempt_at.eq(now),
            push_outbox::last_error.eq(None::<String>),
            push_outbox::sent_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}

/// Records an attempt that failed, as `mail::record_failure` does.
pub fn record_failure(
    conn: &mut DbConnection,
    id: i64,
    status: &str,
    retry_at: i64,
    error: &str,
) -> QueryResult<()> {
    diesel::update(push_outbox::table.find(id))
        .set((
            push_outbox::status.eq(status),
            push_outbox::next_attempt_at.eq(retry_at),
            push_outbox::last_error.eq(error),
        ))
        .execute(conn)
        .map(drop)
}
