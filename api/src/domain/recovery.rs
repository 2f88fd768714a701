//! "Forgot password": a link by e-mail to the verified address, single use
//! and short lived, and nothing in any answer that says whether an account
//! or an address exists.

use crate::{
    clock::{HOUR, Millis},
    credentials::{digest, new_secret},
    db::{DbConnection, write_transaction},
    domain::{
        mail::{self, Mailer, checked_address},
        notices::{Letter, escape},
    },
    error::{ApiError, Code},
    models::{
        account,
        mail::{RESET, count_to_since, verified_at_address},
        notification::{self, ResetRow},
        token,
    },
    notify::{Outbox, token_signal},
    stored::AccountId,
};

/// How long a reset link serves.
pub const LINK_LIFETIME: Millis = HOUR;
/// Reset links for one account, and reset mails to one address, in an hour.
pub const RESETS_PER_HOUR: i64 = 3;
/// Accounts one request by address may reach.
const ACCOUNTS_PER_ADDRESS: i64 = 5;

/// Asks for reset links for `login`, a username or an address: a mail goes
/// to the verified address of each account it names, within the hourly
/// bounds. The caller learns nothing of what was found, sent or withheld.
pub fn ask(
    conn: &mut DbConnection,
    mailer: &Mailer,
    login: &str,
    now: Millis,
) -> Result<(), ApiError> {
    let login = login.trim();
    write_transaction(conn, |conn| {
        let found: Vec<(AccountId, String, String)> = if login.contains('@') {
            let Ok(address) = checked_address(login) else {
                return Ok(());
            };
            verified_at_address(conn, &address, ACCOUNTS_PER_ADDRESS)?
                .into_iter()
                .map(|(id, username)| (id, username, address.clone()))
                .collect()
        } else {
            let Some(account) = account::find_by_username(conn, login)? else {
                return Ok(());
            };
            match crate::models::mail::find(conn, &account.id)? {
                Some(email) if email.verified_at.is_some() => {
                    vec![(account.id, account.username, email.address)]
                }
                _ => Vec::new(),
            }
        };
        for (account, username, address) in found {
            if notification::resets_since(conn, &account, now - HOUR)? >= RESETS_PER_HOUR
                || count_to_since(conn, &address, RESET, now - HOUR)? >= RESETS_PER_HOUR
            {
                continue;
            }
            let token = new_secret();
            notification::insert_reset(
                conn,
                &ResetRow {
                    token_digest: digest(&token),
                    account_id: account.clone(),
                    expires_at: now + LINK_LIFETIME,
                    used_at: None,
                    created_at: now,
                },
            )?;
            let link = mailer.public_page(&format!("reset-password/{token}"));
            mail::queue(
                conn,
                &account,
                &address,
                RESET,
                &reset_letter(&username, &link),
                now,
            )?;
        }
        Ok(())
    })
}

fn reset_letter(username: &str, link: &str) -> Letter {
    let text = format!(
        "Hello {username},\n\nto choose a new password for your kingpost account, open this \
         link within an hour:\n\n{link}\n\nIt serves once. If you did not ask for it, ignore \
         this mail: your password stays as it is.\n"
    );
    let html = format!(
        "<p>Hello {},</p><p>to choose a new password for your kingpost account, open \
         <a href=\"{}\">this link</a> within an hour.</p><p>It serves once. If you did not ask \
         for it, ignore this mail: your password stays as it is.</p>",
        escape(username),
        escape(link),
    );
    Letter {
        subject: "Your kingpost password".to_owned(),
        text,
        html,
        unsubscribe: None,
    }
}

fn refused() -> ApiError {
    ApiError::invalid(
        Code::InvalidToken,
        "the link is used, expired or not one this server sent",
    )
}

/// The username of the account `token`'s link resets, if it still serves:
/// for checking the new password before it is hashed.
pub fn username_for(conn: &mut DbConnection, token: &str, now: Millis) -> Result<String, ApiError> {
    let account = notification::peek_reset(conn, &digest(token), now)?.ok_or_else(refused)?;
    Ok(account::find(conn, &account)?.ok_or_else(refused)?.username)
}

/// Uses `token`'s link: the account's password becomes `new_hash` and
/// every sign-in of it is signed out (its personal tokens stay, as after a
/// password change). Once: a second use is refused as an unknown link.
pub fn reset(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    token: &str,
    new_hash: &str,
    now: Millis,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let account = notification::use_reset(conn, &digest(token), now)?.ok_or_else(refused)?;
        account::set_password_hash(conn, &account, new_hash)?;
        // No sign-in is kept: no family is named "".
        token::revoke_other_sign_ins(conn, &account, "", now)?;
        outbox.push(token_signal(&account));
        Ok(())
    })
}
