//! Which events reach an account by e-mail, and when; and the links of
//! "forgot password" mails.

use diesel::{prelude::*, upsert::excluded};

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{notification_settings, password_resets},
    },
    stored::{AccountId, KeyList},
    views::EventKind,
};

/// An account's choice; an account without a row has the defaults.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = notification_settings, treat_none_as_default_value = false)]
pub struct SettingsRow {
    pub account_id: AccountId,
    pub email_events: KeyList<EventKind>,
    /// One mail a day rather than one an event.
    pub email_digest: bool,
    /// The hour of the digest, 0 to 23, in `time_zone`.
    pub digest_hour: i32,
    pub time_zone: String,
    pub next_digest_at: Option<i64>,
    /// A digest tells of the events since this time.
    pub digest_since: i64,
    pub updated_at: i64,
    /// The events pushed; none: the defaults.
    pub push_events: Option<KeyList<EventKind>>,
    /// How many push subscriptions the account has (kept by
    /// `push::count_subscriptions`, never by [`put`]).
    pub push_subscriptions: i32,
}

/// The events mailed, and pushed, to an account that chose none: what a
/// correspondence player acts on.
pub const DEFAULT_EVENTS: &[EventKind] = &[
    EventKind::GameStarted,
    EventKind::OpponentMoved,
    EventKind::DrawOffered,
    EventKind::GameFinished,
    EventKind::DeadlineNear,
    EventKind::ChallengeReceived,
    EventKind::MessageReceived,
    EventKind::TournamentStarted,
    EventKind::TournamentRound,
    EventKind::TeamMatchStarted,
    EventKind::TeamInvited,
];
pub const DEFAULT_DIGEST_HOUR: i32 = 8;
pub const DEFAULT_TIME_ZONE: &str = "UTC";

/// The settings of an account that chose none, as of `now`.
pub fn defaults(account: &AccountId, now: i64) -> SettingsRow {
    SettingsRow {
        account_id: account.clone(),
        email_events: KeyList::new(DEFAULT_EVENTS.to_vec()),
        email_digest: false,
        digest_hour: DEFAULT_DIGEST_HOUR,
        time_zone: DEFAULT_TIME_ZONE.to_owned(),
        next_digest_at: None,
        digest_since: now,
        updated_at: now,
        push_events: None,
        push_subscriptions: 0,
    }
}

pub fn find(conn: &mut DbConnection, account: &AccountId) -> QueryResult<Option<SettingsRow>> {
    notification_settings::table
        .find(account)
        .select(SettingsRow::as_select())
        .first(conn)
        .optional()
}

/// Writes an account's settings, whole but for the count of its push
/// subscriptions, which only their changes write.
pub fn put(conn: &mut DbConnection, row: &SettingsRow) -> QueryResult<()> {
    let upsert = diesel::insert_into(notification_settings::table)
        .values(row)
        .on_conflict(notification_settings::account_id)
        .do_update()
        .set((
            notification_settings::email_events.eq(excluded(notification_settings::email_events)),
            notification_settings::email_digest.eq(excluded(notification_settings::email_digest)),
            notification_settings::digest_hour.eq(excluded(notification_settings::digest_hour)),
            notification_settings::time_zone.eq(excluded(notification_settings::time_zone)),
            notification_settings::next_digest_at
                .eq(excluded(notification_settings::next_digest_at)),
            notification_settings::digest_since.eq(excluded(notification_settings::digest_since)),
            notification_settings::updated_at.eq(excluded(notification_settings::updated_at)),
            notification_settings::push_events.eq(excluded(notification_settings::push_events)),
        ));
    execute_natively(conn, upsert).map(|_| ())
}

/// Up to `limit` accounts whose digest is due by `now`, the longest due first.
pub fn digests_due(conn: &mut DbConnection, now: i64, limit: i64) -> QueryResult<Vec<SettingsRow>> {
    notification_settings::table
        .filter(notification_settings::next_digest_at.le(now))
        .order((
            notification_settings::next_digest_at,
            notification_settings::account_id,
        ))
        .limit(limit)
        .select(SettingsRow::as_select())
        .load(conn)
}

/// Moves an account's next digest from `due` (as read) to `next`, telling
/// of the events from `since` then: whether this caller did (another
/// instance doing it at the same time loses).
pub fn advance_digest(
    conn: &mut DbConnection,
    account: &AccountId,
    due: i64,
    next: Option<i64>,
    since: i64,
) -> QueryResult<bool> {
    diesel::update(
        notification_settings::table
            .find(account)
            .filter(notification_settings::next_digest_at.eq(due)),
    )
    .set((
        notification_settings::next_digest_at.eq(next),
        notification_settings::digest_since.eq(since),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// A "forgot password" link, by the digest of its token.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = password_resets, treat_none_as_default_value = false)]
pub struct ResetRow {
    pub token_digest: String,
    pub account_id: AccountId,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    pub created_at: i64,
}

pub fn insert_reset(conn: &mut DbConnection, row: &ResetRow) -> QueryResult<()> {
    diesel::insert_into(password_resets::table)
        .values(row)
        .execute(conn)
        .map(|_| ())
}

/// Uses the link of `digest` if it is unused and unexpired: the account
/// it resets (once: a second use finds nothing).
pub fn use_reset(
    conn: &mut DbConnection,
    digest: &str,
    now: i64,
) -> QueryResult<Option<AccountId>> {
    diesel::update(
        password_resets::table
            .find(digest)
            .filter(password_resets::used_at.is_null())
            .filter(password_resets::expires_at.gt(now)),
    )
    .set(password_resets::used_at.eq(now))
    .returning(password_resets::account_id)
    .get_result(conn)
    .optional()
}

/// The account the link of `digest` resets, if it is unused and unexpired
/// (without using it).
pub fn peek_reset(
    conn: &mut DbConnection,
    digest: &str,
    now: i64,
) -> QueryResult<Option<AccountId>> {
    password_resets::table
        .find(digest)
        .filter(password_resets::used_at.is_null())
        .filter(password_resets::expires_at.gt(now))
        .select(password_resets::account_id)
        .first(conn)
        .optional()
}

/// How many reset links were made for `account` since `since`.
pub fn resets_since(conn: &mut DbConnection, account: &AccountId, since: i64) -> QueryResult<i64> {
    password_resets::table
        .filter(password_resets::account_id.eq(account))
        .filter(password_resets::created_at.ge(since))
        .count()
        .get_result(conn)
}
