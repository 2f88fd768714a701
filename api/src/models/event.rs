//! The event log, webhooks and their delivery queue.

use diesel::prelude::*;

use crate::{
    db::{
        DbConnection,
        schema::{account_emails, accounts, deliveries, events, notification_settings, webhooks},
    },
    models::{account::Account, notification::SettingsRow},
    stored::{AccountId, GameId, KeyList, WebhookId},
    views::{DeliveryStatus, EventKind},
};

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = events)]
pub struct EventRow {
    pub id: i64,
    pub account_id: AccountId,
    pub kind: EventKind,
    pub game_id: Option<GameId>,
    pub data: String,
    pub created_at: i64,
}

// `NULL` rather than `DEFAULT` for an absent value (the same here): the
// insert is then kept prepared.
#[derive(Debug, Insertable)]
#[diesel(table_name = events, treat_none_as_default_value = false)]
pub struct NewEvent<'a> {
    pub account_id: &'a AccountId,
    pub kind: EventKind,
    pub game_id: Option<&'a GameId>,
    pub data: &'a str,
    pub created_at: i64,
}

#[derive(Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhooks)]
pub struct WebhookRow {
    pub id: WebhookId,
    pub account_id: AccountId,
    pub url: String,
    pub secret: String,
    pub kinds: KeyList<EventKind>,
    pub created_at: i64,
}

impl std::fmt::Debug for WebhookRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookRow")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("kinds", &self.kinds)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = deliveries, treat_none_as_default_value = false)]
pub struct DeliveryRow {
    pub id: String,
    pub webhook_id: WebhookId,
    pub event_id: i64,
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub next_attempt_at: i64,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub delivered_at: Option<i64>,
}

pub fn insert(conn: &mut DbConnection, event: &NewEvent<'_>) -> QueryResult<i64> {
    diesel::insert_into(events::table)
        .values(event)
        .returning(events::id)
        .get_result(conn)
}

/// An account's events after `after`, oldest first.
pub fn since(
    conn: &mut DbConnection,
    account_id: &AccountId,
    after: i64,
    limit: i64,
) -> QueryResult<Vec<EventRow>> {
    events::table
        .filter(events::account_id.eq(account_id))
        .filter(events::id.gt(after))
        .order(events::id)
        .limit(limit)
        .select(EventRow::as_select())
        .load(conn)
}

/// The last event id of an account (0 when none).
/// Up to `limit` of an account's events of `kinds` since `since`, oldest
/// first.
pub fn of_kinds_since(
    conn: &mut DbConnection,
    account_id: &AccountId,
    kinds: &[EventKind],
    since: i64,
    limit: i64,
) -> QueryResult<Vec<EventRow>> {
    events::table
        .filter(events::account_id.eq(account_id))
        .filter(events::created_at.ge(since))
        .filter(events::kind.eq_any(kinds))
        .order(events::id)
        .limit(limit)
        .select(EventRow::as_select())
        .load(conn)
}

pub fn last_id(conn: &mut DbConnection, account_id: &AccountId) -> QueryResult<i64> {
    events::table
        .filter(events::account_id.eq(account_id))
        .select(diesel::dsl::max(events::id))
        .first::<Option<i64>>(conn)
        .map(|id| id.unwrap_or(0))
}

pub fn find(conn: &mut DbConnection, id: i64) -> QueryResult<Option<EventRow>> {
    events::table
        .find(id)
        .select(EventRow::as_select())
        .first(conn)
        .optional()
}

/// The events of these ids still kept.
pub fn find_all(conn: &mut DbConnection, ids: &[i64]) -> QueryResult<Vec<EventRow>> {
    events::table
        .filter(events::id.eq_any(ids))
        .select(EventRow::as_select())
        .load(conn)
}

/// Forgets up to `limit` of the deliveries done before `before`: how many.
pub fn prune_deliveries(conn: &mut DbConnection, before: i64, limit: i64) -> QueryResult<usize> {
    let done: Vec<String> = deliveries::table
        .filter(deliveries::status.ne(DeliveryStatus::Pending))
        .filter(deliveries::created_at.lt(before))
        .select(deliveries::id)
        .limit(limit)
        .load(conn)?;
    diesel::delete(deliveries::table.filter(deliveries::id.eq_any(&done))).execute(conn)
}

/// Forgets the oldest events before `before`, up to `limit` of them (a few
/// more where several share the last one's time): how many.
pub fn prune(conn: &mut DbConnection, before: i64, limit: i64) -> QueryResult<usize> {
    let oldest: Vec<i64> = events::table
        .filter(events::created_at.lt(before))
        .select(events::created_at)
        .order(events::created_at)
        .limit(limit)
        .load(conn)?;
    let Some(&last) = oldest.last() else {
        return Ok(0);
    };
    diesel::delete(events::table.filter(events::created_at.le(last))).execute(conn)
}

pub fn insert_webhook(conn: &mut DbConnection, row: &WebhookRow) -> QueryResult<()> {
    diesel::insert_into(webhooks::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// What recording an event for an account needs of it.
#[derive(Debug)]
pub struct RecipientRow {
    pub account: Account,
    /// Its webhooks, oldest first.
    pub webhooks: Vec<WebhookRow>,
    /// Its verified address, if any.
    pub address: Option<String>,
    /// Its notification settings; none: the defaults.
    pub settings: Option<SettingsRow>,
}

/// Two accounts (or one given twice), each with what its events need
/// (webhooks, verified address, notification settings): what a change to a
/// game needs of its players, in one read.
pub fn recipients(
    conn: &mut DbConnection,
    first: &AccountId,
    second: &AccountId,
) -> QueryResult<Vec<RecipientRow>> {
    type Row = (
        Account,
        Option<WebhookRow>,
        Option<String>,
        Option<SettingsRow>,
    );
    let rows: Vec<Row> = accounts::table
        .left_join(webhooks::table.on(webhooks::account_id.eq(accounts::id)))
        .left_join(
            account_emails::table.on(account_emails::account_id
                .eq(accounts::id)
                .and(account_emails::verified_at.is_not_null())),
        )
        .left_join(
            notification_settings::table.on(notification_settings::account_id.eq(accounts::id)),
        )
        .filter(accounts::id.eq(first).or(accounts::id.eq(second)))
        .order((accounts::id, webhooks::created_at, webhooks::id))
        .select((
            Account::as_select(),
            Option::<WebhookRow>::as_select(),
            account_emails::address.nullable(),
            Option::<SettingsRow>::as_select(),
        ))
        .load(conn)?;
    let mut found: Vec<RecipientRow> = Vec::new();
    for (account, hook, address, settings) in rows {
        if found
            .last()
            .is_none_or(|last| last.account.id != account.id)
        {
            found.push(RecipientRow {
                account,
                webhooks: Vec::new(),
                address,
                settings,
            });
        }
        if let (Some(hook), Some(last)) = (hook, found.last_mut()) {
            last.webhooks.push(hook);
        }
    }
    Ok(found)
}

pub fn webhooks_of(
    conn: &mut DbConnection,
    account_id: &AccountId,
) -> QueryResult<Vec<WebhookRow>> {
    webhooks::table
        .filter(webhooks::account_id.eq(account_id))
        .order(webhooks::created_at)
        .select(WebhookRow::as_select())
        .load(conn)
}

pub fn find_webhook(conn: &mut DbConnection, id: &WebhookId) -> QueryResult<Option<WebhookRow>> {
    webhooks::table
        .find(id)
        .select(WebhookRow::as_select())
        .first(conn)
        .optional()
}

pub fn delete_webhook(conn: &mut DbConnection, id: &WebhookId) -> QueryResult<()> {
    diesel::delete(deliveries::table.filter(deliveries::webhook_id.eq(id))).execute(conn)?;
    diesel::delete(webhooks::table.find(id))
        .execute(conn)
        .map(|_| ())
}

pub fn insert_delivery(conn: &mut DbConnection, row: &DeliveryRow) -> QueryResult<()> {
    diesel::insert_into(deliveries::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// A delivery due, and the account whose webhook it is for.
#[derive(Debug, QueryableByName)]
pub struct FairlyDue {
    #[diesel(embed)]
    pub delivery: DeliveryRow,
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub account_id: AccountId,
}

/// Up to `limit` deliveries due by `now`, in turns across accounts: each
/// account's oldest first, then each one's second, and so on, at most
/// `per_account` of one account. An account with a thousand deliveries
/// waiting comes before another's first only once.
pub fn due_fairly(
    conn: &mut DbConnection,
    now: i64,
    per_account: i64,
    limit: i64,
) -> QueryResult<Vec<FairlyDue>> {
    use diesel::sql_types::{BigInt, Text};
    // A window over the due deliveries, which Diesel's query builder does
    // not write: each account's in order, numbered.
    diesel::sql_query(
        "SELECT id, webhook_id, event_id, status, attempts, next_attempt_at, last_status, \
                last_error, created_at, delivered_at, account_id \
         FROM (SELECT d.*, w.account_id, ROW_NUMBER() OVER \
                 (PARTITION BY w.account_id ORDER BY d.next_attempt_at, d.id) AS turn \
               FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id \
               WHERE d.status = $1 AND d.next_attempt_at <= $2) due \
         WHERE turn <= $3 ORDER BY turn, next_attempt_at, id LIMIT $4",
    )
    .bind::<Text, _>(DeliveryStatus::Pending.key())
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(per_account)
    .bind::<BigInt, _>(limit)
    .load(conn)
}

/// Takes a due delivery for `lease_until`: whether this caller got it (an
/// instance that read the same row first makes the update match nothing).
pub fn claim_delivery(
    conn: &mut DbConnection,
    row: &DeliveryRow,
    lease_until: i64,
) -> QueryResult<bool> {
    diesel::update(
        deliveries::table
            .filter(deliveries::id.eq(&row.id))
            .filter(deliveries::status.eq(DeliveryStatus::Pending))
            .filter(deliveries::next_attempt_at.eq(row.next_attempt_at)),
    )
    .set(deliveries::next_attempt_at.eq(lease_until))
    .execute(conn)
    .map(|n| n == 1)
}

/// The result of one delivery attempt.
#[derive(Debug, AsChangeset)]
#[diesel(table_name = deliveries, treat_none_as_null = true)]
pub struct Attempt {
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub next_attempt_at: i64,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub delivered_at: Option<i64>,
}

/// Records an attempt's result.
pub fn record_attempt(conn: &mut DbConnection, id: &str, attempt: &Attempt) -> QueryResult<()> {
    diesel::update(deliveries::table.find(id))
        .set(attempt)
        .execute(conn)
        .map(|_| ())
}

/// A webhook's deliveries, newest first.
pub fn deliveries_of(
    conn: &mut DbConnection,
    webhook_id: &WebhookId,
    limit: i64,
) -> QueryResult<Vec<DeliveryRow>> {
    deliveries::table
        .filter(deliveries::webhook_id.eq(webhook_id))
        .order(deliveries::created_at.desc())
        .limit(limit)
        .select(DeliveryRow::as_select())
        .load(conn)
}
