//! Accounts' e-mail addresses, and the outbox of mail to send.

use diesel::{prelude::*, upsert::excluded};

use crate::{
    db::{
        DbConnection, execute_natively,
        schema::{account_emails, accounts, mail_outbox},
    },
    stored::AccountId,
};

/// An account's address, verified or waiting for its link.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = account_emails)]
pub struct AccountEmail {
    pub account_id: AccountId,
    pub address: String,
    pub verified_at: Option<i64>,
    pub token_digest: Option<String>,
    pub token_expires_at: Option<i64>,
    pub updated_at: i64,
}

/// Sets an account's address, unverified, with the digest of the token its
/// verification link carries (replacing an address or a link before).
pub fn set_pending(conn: &mut DbConnection, row: &AccountEmail) -> QueryResult<()> {
    let upsert = diesel::insert_into(account_emails::table)
        .values(row)
        .on_conflict(account_emails::account_id)
        .do_update()
        .set((
            account_emails::address.eq(excluded(account_emails::address)),
            account_emails::verified_at.eq(excluded(account_emails::verified_at)),
            account_emails::token_digest.eq(excluded(account_emails::token_digest)),
            account_emails::token_expires_at.eq(excluded(account_emails::token_expires_at)),
            account_emails::updated_at.eq(excluded(account_emails::updated_at)),
        ));
    execute_natively(conn, upsert).map(|_| ())
}

pub fn find(conn: &mut DbConnection, account: &AccountId) -> QueryResult<Option<AccountEmail>> {
    account_emails::table
        .find(account)
        .select(AccountEmail::as_select())
        .first(conn)
        .optional()
}

/// Marks verified the address whose link carries the token of `digest`,
/// if the link is unused and unexpired; the account it belongs to.
pub fn verify(conn: &mut DbConnection, digest: &str, now: i64) -> QueryResult<Option<AccountId>> {
    let Some(account) = account_emails::table
        .filter(account_emails::token_digest.eq(digest))
        .filter(account_emails::token_expires_at.gt(now))
        .select(account_emails::account_id)
        .first::<AccountId>(conn)
        .optional()?
    else {
        return Ok(None);
    };
    diesel::update(account_emails::table.find(&account))
        .set((
            account_emails::verified_at.eq(now),
            account_emails::token_digest.eq(None::<String>),
            account_emails::token_expires_at.eq(None::<i64>),
        ))
        .execute(conn)?;
    Ok(Some(account))
}

/// The accounts whose verified address is `address`, with their usernames.
pub fn verified_at_address(
    conn: &mut DbConnection,
    address: &str,
    limit: i64,
) -> QueryResult<Vec<(AccountId, String)>> {
    account_emails::table
        .inner_join(accounts::table.on(accounts::id.eq(account_emails::account_id)))
        .filter(account_emails::address.eq(address))
        .filter(account_emails::verified_at.is_not_null())
        .order(accounts::username_key)
        .limit(limit)
        .select((accounts::id, accounts::username))
        .load(conn)
}

/// A mail of the outbox.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = mail_outbox)]
pub struct MailRow {
    pub id: i64,
    pub account_id: AccountId,
    pub to_address: String,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub created_at: i64,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: i64,
    pub sent_at: Option<i64>,
    pub last_error: Option<String>,
    pub kind: String,
    /// The event a notice tells of: its text is written when it is sent.
    pub event_id: Option<i64>,
}

/// A mail to queue.
#[derive(Debug, Insertable)]
#[diesel(table_name = mail_outbox, treat_none_as_default_value = false)]
pub struct NewMail<'a> {
    pub account_id: &'a AccountId,
    pub to_address: &'a str,
    pub subject: &'a str,
    pub text_body: &'a str,
    pub html_body: &'a str,
    pub created_at: i64,
    pub status: &'a str,
    pub attempts: i32,
    pub next_attempt_at: i64,
    pub sent_at: Option<i64>,
    pub last_error: Option<&'a str>,
    pub kind: &'a str,
    pub event_id: Option<i64>,
}

pub const PENDING: &str = "pending";
pub const SENT: &str = "sent";
pub const FAILED: &str = "failed";

/// What a mail is: each kind has its own hourly bounds.
pub const VERIFICATION: &str = "verification";
pub const RESET: &str = "reset";
pub const NOTICE: &str = "notice";
pub const DIGEST: &str = "digest";

pub fn insert(conn: &mut DbConnection, mail: &NewMail<'_>) -> QueryResult<()> {
    diesel::insert_into(mail_outbox::table)
        .values(mail)
        .execute(conn)
        .map(|_| ())
}

/// Up to `limit` pending mails due by `now`, oldest due first.
pub fn due(conn: &mut DbConnection, now: i64, limit: i64) -> QueryResult<Vec<MailRow>> {
    mail_outbox::table
        .filter(mail_outbox::status.eq(PENDING))
        .filter(mail_outbox::next_attempt_at.le(now))
        .order((mail_outbox::next_attempt_at, mail_outbox::id))
        .limit(limit)
        .select(MailRow::as_select())
        .load(conn)
}

/// Takes a due mail for one attempt, leased until `until`: whether this
/// caller won it (another instance reading it due at the same time loses).
pub fn lease(conn: &mut DbConnection, mail: &MailRow, until: i64) -> QueryResult<bool> {
    diesel::update(
        mail_outbox::table
            .filter(mail_outbox::id.eq(mail.id))
            .filter(mail_outbox::status.eq(PENDING))
            .filter(mail_outbox::next_attempt_at.eq(mail.next_attempt_at)),
    )
    .set((
        mail_outbox::next_attempt_at.eq(until),
        mail_outbox::attempts.eq(mail.attempts + 1),
    ))
    .execute(conn)
    .map(|n| n == 1)
}

/// Records an attempt's end: `sent`, or pending again at `retry_at` with
/// the error, or failed for good.
pub fn record(
    conn: &mut DbConnection,
    id: i64,
    status: &str,
    retry_at: i64,
    error: Option<&str>,
    now: i64,
) -> QueryResult<()> {
    diesel::update(mail_outbox::table.find(id))
        .set((
            mail_outbox::status.eq(status),
            mail_outbox::next_attempt_at.eq(retry_at),
            mail_outbox::last_error.eq(error),
            mail_outbox::sent_at.eq((status == SENT).then_some(now)),
        ))
        .execute(conn)
        .map(|_| ())
}

/// How many mails of `kind` were queued for `account` (to any address)
/// since `since`.
pub fn count_for_since(
    conn: &mut DbConnection,
    account: &AccountId,
    kind: &str,
    since: i64,
) -> QueryResult<i64> {
    mail_outbox::table
        .filter(mail_outbox::account_id.eq(account))
        .filter(mail_outbox::kind.eq(kind))
        .filter(mail_outbox::created_at.ge(since))
        .count()
        .get_result(conn)
}

/// How many mails of `kind` went to `address` (of any account) since
/// `since`.
pub fn count_to_since(
    conn: &mut DbConnection,
    address: &str,
    kind: &str,
    since: i64,
) -> QueryResult<i64> {
    mail_outbox::table
        .filter(mail_outbox::to_address.eq(address))
        .filter(mail_outbox::kind.eq(kind))
        .filter(mail_outbox::created_at.ge(since))
        .count()
        .get_result(conn)
}
