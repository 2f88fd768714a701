//! Accounts: what a username and a password must be, registering one, and
//! changing its password.

use crate::{
    clock::Millis,
    credentials::new_id,
    db::{DbConnection, write_transaction},
    domain::vacation,
    error::{ApiError, Code},
    models::{
        account::{self, Account, username_key},
        token,
    },
    notify::{Outbox, token_signal},
    stored::{AccountId, TokenId},
    views::{AccountView, Timestamp},
};

/// Registers `username` with the hash of its password; the first month's
/// vacation is earned at registration.
pub fn create(
    conn: &mut DbConnection,
    username: String,
    password_hash: String,
    now: Millis,
) -> Result<Account, ApiError> {
    if account::find_by_username(conn, &username)?.is_some() {
        return Err(ApiError::UsernameTaken(username));
    }
    let account = Account {
        id: new_id().into(),
        username_key: username_key(&username),
        username,
        password_hash,
        created_at: now,
        vacation_balance: vacation::MONTHLY,
        vacation_next_grant_at: now + vacation::MONTH,
        vacation_since: None,
        last_active_at: None,
        deleted_at: None,
        bot: false,
        online_until: None,
    };
    // The unique key settles a race between two registrations.
    account::insert(conn, &account).map_err(|e| match e {
        diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        ) => ApiError::UsernameTaken(account.username.clone()),
        other => other.into(),
    })?;
    Ok(account)
}

pub fn check_username(username: &str) -> Result<(), ApiError> {
    let valid_chars = username
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let starts_well = username
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if (3..=20).contains(&username.len()) && valid_chars && starts_well {
        Ok(())
    } else {
        Err(ApiError::invalid(
            Code::InvalidUsername,
            "a username has 3 to 20 letters, digits, `_` or `-`, and begins with a letter or digit",
        ))
    }
}

/// Passwords tried first by anyone guessing.
const COMMON_PASSWORDS: [&str; 12] = [
    "password",
    "password1",
    "12345678",
    "123456789",
    "1234567890",
    "qwertyuiop",
    "qwerty123",
    "iloveyou",
    "11111111",
    "abcdefgh",
    "chessmaster",
    "letmein1",
];

pub fn check_password(username: &str, password: &str) -> Result<(), ApiError> {
    let invalid = |why: &str| Err(ApiError::invalid(Code::InvalidPassword, why));
    if !(8..=128).contains(&password.chars().count()) {
        return invalid("a password has 8 to 128 characters");
    }
    let lower = password.to_lowercase();
    if lower.contains(&username.to_lowercase()) {
        return invalid("a password may not contain the username");
    }
    if COMMON_PASSWORDS.contains(&lower.as_str()) || lower.chars().all(|c| lower.starts_with(c)) {
        return invalid("this password is among the first anyone would try");
    }
    Ok(())
}

/// Gives the account the password of hash `new_hash`, and signs out every
/// other sign-in (its sessions and refresh tokens) but the caller's, that
/// of `token_id`: whoever knew the old password is out. Personal tokens,
/// made and named by the owner, stay.
pub fn change_password(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    account_id: &AccountId,
    token_id: &TokenId,
    new_hash: &str,
    now: Millis,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let caller = token::find_live(conn, token_id, now)?
            .ok_or_else(|| ApiError::Unauthorized("the token was revoked".to_owned()))?;
        account::set_password_hash(conn, account_id, new_hash)?;
        let keep = caller.token.family.unwrap_or_default();
        token::revoke_other_sign_ins(conn, account_id, &keep, now)?;
        outbox.push(token_signal(account_id));
        Ok(())
    })
}

/// The account `id`, or `404`.
pub fn find(conn: &mut DbConnection, id: &AccountId) -> Result<Account, ApiError> {
    account::find(conn, id)?.ok_or_else(|| ApiError::NotFound("account".to_owned()))
}

/// The account of `username` (in any case), or `404`.
pub fn find_by_username(conn: &mut DbConnection, username: &str) -> Result<Account, ApiError> {
    account::find_by_username(conn, username)?
        .ok_or_else(|| ApiError::NotFound(format!("user `{username}`")))
}

impl From<Account> for AccountView {
    fn from(account: Account) -> AccountView {
        AccountView {
            id: account.id.into(),
            username: account.username,
            created_at: Timestamp(account.created_at),
        }
    }
}
