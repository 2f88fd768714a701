//! E-mail: an account's address, verified by a link before anything else
//! is sent to it, and the outbox every mail goes through. A mail is queued
//! in the transaction of the change that causes it, so that no change is
//! acknowledged without its mail, and sent after the commit by the delivery
//! loop of whichever instance leases it; a mail server that is down delays
//! mail and fails nothing else.

use std::time::Duration;

use lettre::{
    Address, Message, SmtpTransport, Transport,
    message::{
        Mailbox, MultiPart,
        header::{HeaderName, HeaderValue},
    },
};

use crate::{
    clock::{DAY, HOUR, MINUTE, Millis, SECOND},
    credentials::{JwtKeys, digest, new_secret},
    db::{DbConnection, write_transaction},
    domain::notices::{self, Letter, Links, escape},
    error::{ApiError, Code},
    models::mail::{self, AccountEmail, FAILED, MailRow, NewMail, PENDING, VERIFICATION},
    stored::AccountId,
    views::EmailView,
};

/// How long a verification link serves.
pub const LINK_LIFETIME: Millis = DAY;
/// Verification mails to one address in an hour, whoever asks.
pub const VERIFICATIONS_PER_HOUR: i64 = 5;
/// Verification mails one account may have sent in an hour, to any
/// addresses: an account is no way to mail strangers.
pub const VERIFICATIONS_PER_ACCOUNT_HOUR: i64 = 10;
/// How long one instance holds a mail it is sending.
const LEASE: Millis = 5 * MINUTE;
/// Attempts before a mail is given up: the waits between them add up to
/// about a day.
const MOST_ATTEMPTS: i32 = 16;

/// How the server sends mail: SMTP (`smtp://` plain or with STARTTLS by
/// `?tls=required`, `smtps://` TLS from the start, credentials in the URL)
/// and the sender every mail names.
pub struct Mailer {
    transport: SmtpTransport,
    from: Mailbox,
    /// Where the web client is served: the links in mails point there.
    public_url: String,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold the SMTP password: only the sender is shown.
        f.debug_struct("Mailer")
            .field("from", &self.from)
            .finish_non_exhaustive()
    }
}

impl Mailer {
    pub fn new(smtp_url: &str, from: &str, public_url: &str) -> anyhow::Result<Mailer> {
        let transport = SmtpTransport::from_url(smtp_url)
            .map_err(|e| anyhow::anyhow!("--smtp-url: {e}"))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        let from = from
            .parse()
            .map_err(|e| anyhow::anyhow!("--mail-from `{from}`: {e}"))?;
        Ok(Mailer {
            transport,
            from,
            public_url: public_url.trim_end_matches('/').to_owned(),
        })
    }

    /// A page of the web client: `#/{hash}` under the public URL.
    pub fn public_page(&self, hash: &str) -> String {
        format!("{}/#/{hash}", self.public_url)
    }

    /// The links mails carry, signed with `keys` where they act.
    pub fn links<'a>(&'a self, keys: &'a JwtKeys) -> Links<'a> {
        Links::new(&self.public_url, keys)
    }

    /// Sends one mail to `to`.
    pub fn send(&self, to: &str, letter: &Letter) -> Result<(), String> {
        let to: Mailbox = to.parse().map_err(|e| format!("{e}"))?;
        let mut message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&letter.subject);
        if let Some(url) = &letter.unsubscribe {
            // RFC 8058: a mail client unsubscribes with one POST of
            // `List-Unsubscribe=One-Click` to the link, no page in between.
            let header =
                |name, value| HeaderValue::new(HeaderName::new_from_ascii_str(name), value);
            message = message
                .raw_header(header("List-Unsubscribe", format!("<{url}>")))
                .raw_header(header(
                    "List-Unsubscribe-Post",
                    "List-Unsubscribe=One-Click".to_owned(),
                ));
        }
        let message = message
            .multipart(MultiPart::alternative_plain_html(
                letter.text.clone(),
                letter.html.clone(),
            ))
            .map_err(|e| e.to_string())?;
        self.transport
            .send(&message)
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// `text` as an address mail can go to, or a 422.
pub fn checked_address(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    let refuse = || {
        ApiError::invalid(
            Code::InvalidEmail,
            format!("`{text}` is not an e-mail address (name@example.org)"),
        )
    };
    if text.len() > 254 {
        return Err(refuse());
    }
    let address: Address = text.parse().map_err(|_| refuse())?;
    Ok(address.to_string())
}

/// The refusal of a request that needs mail on a server that sends none.
pub fn off() -> ApiError {
    ApiError::Refused {
        code: Code::EmailOff,
        detail: "this server sends no e-mail: its operator has not set it up".to_owned(),
    }
}

/// Sets `account`'s address (unverified) and queues the mail with its
/// verification link; nothing else is sent to it until the link is
/// followed. Answers the address as it stands.
pub fn set_address(
    conn: &mut DbConnection,
    mailer: &Mailer,
    account: &AccountId,
    username: &str,
    address: &str,
    now: Millis,
) -> Result<EmailView, ApiError> {
    let address = checked_address(address)?;
    let token = new_secret();
    let link = mailer.public_page(&format!("verify-email/{token}"));
    write_transaction(conn, |conn| {
        let refuse = |detail: String| ApiError::RateLimited {
            retry_after: u64::try_from(HOUR / SECOND).unwrap_or(3600),
            detail,
        };
        if mail::count_to_since(conn, &address, VERIFICATION, now - HOUR)? >= VERIFICATIONS_PER_HOUR
        {
            return Err(refuse(format!(
                "at most {VERIFICATIONS_PER_HOUR} verification mails an hour to one address"
            )));
        }
        if mail::count_for_since(conn, account, VERIFICATION, now - HOUR)?
            >= VERIFICATIONS_PER_ACCOUNT_HOUR
        {
            return Err(refuse(format!(
                "at most {VERIFICATIONS_PER_ACCOUNT_HOUR} verification mails an hour from one account"
            )));
        }
        mail::set_pending(
            conn,
            &AccountEmail {
                account_id: account.clone(),
                address: address.clone(),
                verified_at: None,
                token_digest: Some(digest(&token)),
                token_expires_at: Some(now + LINK_LIFETIME),
                updated_at: now,
            },
        )?;
        let text = format!(
            "Hello {username},\n\nto receive kingpost's mail at this address, open this link \
             within a day:\n\n{link}\n\nIf you did not ask for it, ignore this mail: nothing \
             will be sent to you.\n"
        );
        let html = format!(
            "<p>Hello {username},</p><p>to receive kingpost's mail at this address, open \
             <a href=\"{link}\">this link</a> within a day.</p><p>If you did not ask for it, \
             ignore this mail: nothing will be sent to you.</p>",
            username = escape(username),
        );
        let letter = Letter {
            subject: "Confirm your address for kingpost".to_owned(),
            text,
            html,
            unsubscribe: None,
        };
        queue(conn, account, &address, VERIFICATION, &letter, now)?;
        Ok(EmailView {
            address: Some(address),
            verified: false,
        })
    })
}

/// Follows a verification link: its token verifies the address it was sent
/// to, once, within its lifetime. Nothing says whether a refused token ever
/// existed.
pub fn verify(conn: &mut DbConnection, token: &str, now: Millis) -> Result<(), ApiError> {
    match mail::verify(conn, &digest(token), now)? {
        Some(_) => Ok(()),
        None => Err(ApiError::invalid(
            Code::InvalidToken,
            "the link is used, expired or not one this server sent",
        )),
    }
}

/// The caller's address, if any.
pub fn address(conn: &mut DbConnection, account: &AccountId) -> Result<EmailView, ApiError> {
    let row = mail::find(conn, account)?;
    Ok(EmailView {
        verified: row.as_ref().is_some_and(|row| row.verified_at.is_some()),
        address: row.map(|row| row.address),
    })
}

/// Queues a mail of `kind`, written, in the caller's transaction.
pub fn queue(
    conn: &mut DbConnection,
    account: &AccountId,
    to: &str,
    kind: &str,
    letter: &Letter,
    now: Millis,
) -> Result<(), ApiError> {
    insert(conn, account, to, kind, letter, None, now)
}

/// Queues a notice of event `event_id`, in the caller's transaction: its
/// text is written when it is sent, from what stands then.
pub fn queue_notice(
    conn: &mut DbConnection,
    account: &AccountId,
    to: &str,
    event_id: i64,
    now: Millis,
) -> Result<(), ApiError> {
    let unwritten = Letter {
        subject: String::new(),
        text: String::new(),
        html: String::new(),
        unsubscribe: None,
    };
    insert(
        conn,
        account,
        to,
        mail::NOTICE,
        &unwritten,
        Some(event_id),
        now,
    )
}

fn insert(
    conn: &mut DbConnection,
    account: &AccountId,
    to: &str,
    kind: &str,
    letter: &Letter,
    event_id: Option<i64>,
    now: Millis,
) -> Result<(), ApiError> {
    mail::insert(
        conn,
        &NewMail {
            account_id: account,
            to_address: to,
            subject: &letter.subject,
            text_body: &letter.text,
            html_body: &letter.html,
            created_at: now,
            status: PENDING,
            attempts: 0,
            next_attempt_at: now,
            sent_at: None,
            last_error: None,
            kind,
            event_id,
        },
    )?;
    Ok(())
}

/// A mail leased for an attempt, with what it says or why it cannot say it.
pub type Claimed = (MailRow, Result<Letter, String>);

/// Leases the mails due now (up to `limit`) to this instance: a short
/// write, kept apart from the reads that write them.
pub fn lease_due(
    conn: &mut DbConnection,
    now: Millis,
    limit: i64,
) -> Result<Vec<MailRow>, ApiError> {
    Ok(write_transaction(conn, |conn| {
        mail::lease_due(conn, now, now + LEASE, limit)
    })?)
}

/// Each leased mail with what it says (notices are written now, from their
/// events as things stand) or why it cannot be written.
pub fn compose(conn: &mut DbConnection, links: &Links<'_>, leased: Vec<MailRow>) -> Vec<Claimed> {
    leased
        .into_iter()
        .map(|row| {
            let letter = notices::compose(conn, links, &row).map_err(|e| e.to_string());
            (row, letter)
        })
        .collect()
}

/// Records how a batch's attempts ended, in one transaction: sent, or
/// retried after a wait that grows with the attempts (ten seconds, then
/// doubling up to six hours), or given up after the last.
pub fn record(
    conn: &mut DbConnection,
    attempts: &[(MailRow, Result<(), String>)],
    now: Millis,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let sent: Vec<i64> = attempts
            .iter()
            .filter(|(_, outcome)| outcome.is_ok())
            .map(|(mail, _)| mail.id)
            .collect();
        mail::mark_sent(conn, &sent, now)?;
        for (mail, outcome) in attempts {
            let Err(error) = outcome else { continue };
            if mail.attempts >= MOST_ATTEMPTS {
                mail::record_failure(conn, mail.id, FAILED, now, error)?;
            } else {
                let wait = crate::clock::backoff(mail.attempts, 6 * HOUR);
                mail::record_failure(conn, mail.id, PENDING, now + wait, error)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_as_mail_reads_them() {
        assert_eq!(
            checked_address(" ana@example.org ").unwrap(),
            "ana@example.org"
        );
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.org",
            "ana example@org",
            "a@b@c",
        ] {
            assert!(checked_address(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}@example.org", "a".repeat(250));
        assert!(checked_address(&long).is_err());
    }
}
