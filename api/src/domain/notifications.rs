//! Notifications by e-mail: which events reach a player's verified
//! address, and when: each at once (ten an hour at most: past them, the
//! hour's other events wait for one digest at its end), or a daily digest
//! at an hour of the player's time zone. A notice is queued in the
//! transaction of the event it tells of; the digests go out from the mail
//! loop.

use jiff::{Timestamp, tz::TimeZone};

use crate::{
    clock::{HOUR, Millis},
    credentials::JwtKeys,
    db::{DbConnection, write_transaction},
    domain::{
        events::Recipient,
        mail,
        notices::{self, Links},
    },
    error::{ApiError, Code},
    models::{
        mail::{DIGEST, NOTICE, count_for_since},
        notification::{self, DEFAULT_EVENTS, SettingsRow},
        push,
    },
    stored::{AccountId, KeyList},
    views::{
        EmailDelivery, EventKind, NotificationSettingsRequest, NotificationSettingsView,
        Timestamp as At,
    },
};

/// Notices mailed to one account in an hour: a player with two hundred
/// games under way gets a digest, not two hundred mails.
pub const NOTICES_PER_HOUR: i64 = 10;

/// An account's settings, the defaults where it has none.
fn settings_or_default(row: Option<SettingsRow>, account: &AccountId, now: Millis) -> SettingsRow {
    row.unwrap_or_else(|| notification::defaults(account, now))
}

fn view(row: &SettingsRow) -> NotificationSettingsView {
    NotificationSettingsView {
        email_events: row.email_events.values().to_vec(),
        email_delivery: if row.email_digest {
            EmailDelivery::Digest
        } else {
            EmailDelivery::Immediate
        },
        digest_hour: u8::try_from(row.digest_hour).unwrap_or_default(),
        time_zone: row.time_zone.clone(),
        next_digest_at: row.next_digest_at.map(At),
        push_events: row
            .push_events
            .as_ref()
            .map_or_else(|| DEFAULT_EVENTS.to_vec(), |kinds| kinds.values().to_vec()),
    }
}

/// The zone a setting names, UTC if it no longer names one.
pub fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap_or(TimeZone::UTC)
}

/// The caller's settings.
pub fn settings(
    conn: &mut DbConnection,
    account: &AccountId,
    now: Millis,
) -> Result<NotificationSettingsView, ApiError> {
    let row = notification::find(conn, account)?;
    Ok(view(&settings_or_default(row, account, now)))
}

/// Changes the caller's settings: the fields given.
pub fn change(
    conn: &mut DbConnection,
    account: &AccountId,
    request: NotificationSettingsRequest,
    now: Millis,
) -> Result<NotificationSettingsView, ApiError> {
    let refuse = |detail: String| ApiError::invalid(Code::InvalidNotificationSettings, detail);
    if let Some(hour) = request.digest_hour
        && hour > 23
    {
        return Err(refuse(format!("digest_hour {hour}: an hour is 0 to 23")));
    }
    if let Some(name) = &request.time_zone
        && TimeZone::get(name).is_err()
    {
        return Err(refuse(format!(
            "`{name}` is not a time zone: an IANA name such as Europe/Paris or UTC"
        )));
    }
    write_transaction(conn, |conn| {
        let mut row = settings_or_default(notification::find(conn, account)?, account, now);
        let was_digest = row.email_digest;
        if let Some(events) = request.email_events {
            row.email_events = KeyList::new(distinct(events));
        }
        if let Some(events) = request.push_events {
            row.push_events = Some(KeyList::new(distinct(events)));
        }
        if let Some(delivery) = request.email_delivery {
            row.email_digest = delivery == EmailDelivery::Digest;
        }
        if let Some(hour) = request.digest_hour {
            row.digest_hour = i32::from(hour);
        }
        if let Some(name) = request.time_zone {
            row.time_zone = name;
        }
        if row.email_digest {
            if !was_digest {
                row.digest_since = now;
            }
            row.next_digest_at = Some(next_hour(now, row.digest_hour, &zone(&row.time_zone)));
        } else if was_digest {
            // Back to a mail an event: the digest under way is dropped
            // (what it would tell stays in the event log).
            row.next_digest_at = None;
        }
        row.updated_at = now;
        notification::put(conn, &row)?;
        Ok(view(&row))
    })
}

/// `kinds` without repeats, in their order.
fn distinct(mut kinds: Vec<EventKind>) -> Vec<EventKind> {
    let mut seen = std::collections::HashSet::new();
    kinds.retain(|kind| seen.insert(*kind));
    kinds
}

/// The first moment after `now` when it is `hour`:00 in `zone` (on a day
/// whose clocks skip that hour, the moment the skip lands on).
pub fn next_hour(now: Millis, hour: i32, zone: &TimeZone) -> Millis {
    let Ok(now_at) = Timestamp::from_millisecond(now) else {
        return now + 24 * HOUR;
    };
    let today = now_at.to_zoned(zone.clone()).date();
    let hour = i8::try_from(hour).unwrap_or(0);
    for day in [today, today.tomorrow().unwrap_or(today)] {
        if let Ok(at) = day.at(hour, 0, 0, 0).to_zoned(zone.clone())
            && at.timestamp() > now_at
        {
            return at.timestamp().as_millisecond();
        }
    }
    now + 24 * HOUR
}

/// Queues what event `event_id` (of `kind`) sends `to`, in the event's
/// transaction: a push to each of its browsers if it pushes that kind, and
/// a notice to its verified address if it mails that kind at once (past
/// the hourly bound, one digest at the hour's end instead). An account
/// with neither costs no statement.
pub fn queue(
    conn: &mut DbConnection,
    now: Millis,
    to: &Recipient<'_>,
    kind: EventKind,
    event_id: i64,
) -> Result<(), ApiError> {
    let account = to.account_id;
    if let Some(row) = to.settings
        && row.push_subscriptions > 0
        && row
            .push_events
            .as_ref()
            .map_or(DEFAULT_EVENTS.contains(&kind), |kinds| {
                kinds.values().contains(&kind)
            })
    {
        push::queue(conn, account, event_id, now)?;
    }
    let Some(address) = to.address else {
        return Ok(());
    };
    let mailed = to.settings.map_or(DEFAULT_EVENTS.contains(&kind), |row| {
        row.email_events.values().contains(&kind)
    });
    if !mailed {
        return Ok(());
    }
    if let Some(row) = to.settings
        && (row.email_digest || row.next_digest_at.is_some())
    {
        // A digest is due: it tells of this event.
        return Ok(());
    }
    if count_for_since(conn, account, NOTICE, now - HOUR)? >= NOTICES_PER_HOUR {
        let mut row = settings_or_default(to.settings.cloned(), account, now);
        row.next_digest_at = Some(now + HOUR);
        row.digest_since = now;
        notification::put(conn, &row)?;
        return Ok(());
    }
    mail::queue_notice(conn, account, address, event_id, now)
}

/// The accounts whose digest is due by `now` (up to `limit`).
pub fn digests_due(
    conn: &mut DbConnection,
    now: Millis,
    limit: i64,
) -> Result<Vec<SettingsRow>, ApiError> {
    Ok(notification::digests_due(conn, now, limit)?)
}

/// Writes and queues one account's digest, due by `now`, and schedules
/// its next. An account without a verified address, or with nothing to
/// tell, gets none, and its next digest is scheduled all the same; one
/// another instance has just sent is left.
pub fn send_digest(
    conn: &mut DbConnection,
    links: &Links<'_>,
    row: &SettingsRow,
    now: Millis,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let zone = zone(&row.time_zone);
        let next = row
            .email_digest
            .then(|| next_hour(now, row.digest_hour, &zone));
        let Some(at) = row.next_digest_at else {
            return Ok(());
        };
        if !notification::advance_digest(conn, &row.account_id, at, next, now)? {
            return Ok(()); // another instance took it
        }
        let Some(address) = crate::models::mail::find(conn, &row.account_id)?
            .filter(|email| email.verified_at.is_some())
            .map(|email| email.address)
        else {
            return Ok(());
        };
        let kinds = row.email_events.values();
        if let Some(letter) =
            notices::digest(conn, links, &row.account_id, kinds, row.digest_since, &zone)?
        {
            mail::queue(conn, &row.account_id, &address, DIGEST, &letter, now)?;
        }
        Ok(())
    })
}

/// Follows a one-click unsubscribe link: no more notification mails for
/// the account it names (its other settings kept). Refused without saying
/// more for a token this server did not make.
pub fn unsubscribe(
    conn: &mut DbConnection,
    keys: &JwtKeys,
    token: &str,
    now: Millis,
) -> Result<(), ApiError> {
    let Some(account) = notices::unsubscribing(keys, token) else {
        return Err(ApiError::invalid(
            Code::InvalidToken,
            "the link is not one this server sent",
        ));
    };
    write_transaction(conn, |conn| {
        let mut row = settings_or_default(notification::find(conn, &account)?, &account, now);
        row.email_events = KeyList::new(Vec::new());
        row.next_digest_at = None;
        row.updated_at = now;
        // An account deleted since has nothing to unsubscribe.
        if crate::models::account::find(conn, &account)?.is_some() {
            notification::put(conn, &row)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Millis {
        text.parse::<Timestamp>().unwrap().as_millisecond()
    }

    #[test]
    fn the_next_digest_is_at_the_local_hour_through_summer_time() {
        let paris = zone("Europe/Paris");
        // Winter: 08:00 in Paris is 07:00 UTC; already past today, so tomorrow.
        assert_eq!(
            next_hour(at("2026-12-05T06:59:00Z"), 8, &paris),
            at("2026-12-05T07:00:00Z")
        );
        assert_eq!(
            next_hour(at("2026-12-05T07:00:00Z"), 8, &paris),
            at("2026-12-06T07:00:00Z")
        );
        // The night the clocks go forward (29 March 2026), 08:00 is 06:00 UTC.
        assert_eq!(
            next_hour(at("2026-03-28T12:00:00Z"), 8, &paris),
            at("2026-03-29T06:00:00Z")
        );
        // 02:00 does not exist that night: the digest goes at 03:00 local.
        assert_eq!(
            next_hour(at("2026-03-28T12:00:00Z"), 2, &paris),
            at("2026-03-29T01:00:00Z")
        );
    }
}
