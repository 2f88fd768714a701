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

/// Leases up to `limit` pending mails due by `now`, oldest due first,
/// until `until`, in one update: the mails this caller won, their attempts
/// counted. The update's conditions are checked again on each row as it is
/// written, so that two instances leasing at once never both win one.
pub fn lease_due(
    conn: &mut DbConnection,
    now: i64,
    until: i64,
    limit: i64,
) -> QueryResult<Vec<MailRow>> {
    let due: Vec<i64> = mail_outbox::table
        .filter(mail_outbox::status.eq(PENDING))
        .filter(mail_outbox::next_attempt_at.le(now))
        .order((mail_outbox::next_attempt_at, mail_outbox::id))
        .limit(limit)
        .select(mail_outbox::id)
        .load(conn)?;
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let won: Vec<i64> = diesel::update(
        mail_outbox::table
            .filter(mail_outbox::id.eq_any(&due))
            .filter(mail_outbox::status.eq(PENDING))
            .filter(mail_outbox::next_attempt_at.le(now)),
    )
    .set((
        mail_outbox::next_attempt_at.eq(until),
        mail_outbox::attempts.eq(mail_outbox::attempts + 1),
    ))
    .returning(mail_outbox::id)
    .get_results(conn)?;
    // Read in the lease's transaction: the rows as this caller leased them.
    mail_outbox::table
        .filter(mail_outbox::id.eq_any(&won))
        .order(mail_outbox::id)
        .select(MailRow::as_select())
        .load(conn)
}

/// Records that these mails were sent at `now`, in one statement.
pub fn mark_sent(conn: &mut DbConnection, ids: &[i64], now: i64) -> QueryResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    diesel::update(mail_outbox::table.filter(mail_outbox::id.eq_any(ids)))
        .set((
            mail_outbox::status.eq(SENT),
            mail_outbox::next_attempt_at.eq(now),
            mail_outbox::last_error.eq(None::<String>),
            mail_outbox::sent_at.eq(now),
        ))
        .execute(conn)
        .map(drop)
}

/// Records an attempt that failed: pending again at `retry_at` with the
/// error, or (`FAILED`) given up.
pub fn record_failure(
    conn: &mut DbConnection,
    id: i64,
    status: &str,
    retry_at: i64,
    error: &str,
) -> QueryResult<()> {
    diesel::update(mail_outbox::table.find(id))
        .set((
            mail_outbox::status.eq(status),
            mail_outbox::next_attempt_at.eq(retry_at),
            mail_outbox::last_error.eq(error),
        ))
        .execute(conn)
        .map(drop)
}

/// Forgets up to `limit` of the mails sent or given up before `before`:
/// how many.
pub fn prune(conn: &mut DbConnection, before: i64, limit: i64) -> QueryResult<usize> {
    let done: Vec<i64> = mail_outbox::table
        .filter(mail_outbox::status.eq_any([SENT, FAILED]))
        .filter(mail_outbox::next_attempt_at.lt(before))
        .select(mail_outbox::id)
        .limit(limit)
        .load(conn)?;
    diesel::delete(mail_outbox::table.filter(mail_outbox::id.eq_any(&done))).execute(conn)
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
