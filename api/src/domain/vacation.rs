//! Vacation: 30 days a year, earned 2.5 days at the start of each 30-day
//! month of an account (the first at registration), kept up to 30 days.
//! While a player is on vacation, the clocks of the games where it is to
//! move stand still: their deadlines move on by the time spent.

use crate::{
    clock::{DAY, Millis},
    db::{DbConnection, write_transaction},
    error::{ApiError, Code},
    models::{
        account::{self, Account},
        game,
    },
    notify::{Outbox, game_signal},
    stored::AccountId,
    views::{Timestamp, VacationView},
};

/// Vacation earned per month.
pub const MONTHLY: Millis = DAY * 5 / 2;
/// The length of an accrual month.
pub const MONTH: Millis = 30 * DAY;
/// The most vacation an account can hold.
pub const CAP: Millis = 30 * DAY;

/// The balance after the grants due by `now`, and when the next is due.
fn accrue(account: &Account, now: Millis) -> (Millis, Millis) {
    let due = account.vacation_next_grant_at;
    if now < due {
        return (account.vacation_balance, due);
    }
    let months = (now - due) / MONTH + 1;
    let balance = (account.vacation_balance + months * MONTHLY).min(CAP);
    (balance, due + months * MONTH)
}

/// When the vacation under way ends, if there is one.
pub fn ends_at(account: &Account) -> Option<Millis> {
    account
        .vacation_since
        .map(|since| since + account.vacation_balance)
}

/// Whether the account is on vacation at `now`.
pub fn is_on_vacation(account: &Account, now: Millis) -> bool {
    ends_at(account).is_some_and(|end| now < end)
}

/// How far the vacation moves the deadline of a game where `account` is to
/// move and whose turn began at `turn_started_at`.
pub fn extension(account: &Account, turn_started_at: Millis, now: Millis) -> Millis {
    match (account.vacation_since, ends_at(account)) {
        (Some(since), Some(end)) => (now.min(end) - since.max(turn_started_at)).max(0),
        _ => 0,
    }
}

/// Ends a vacation that is over by `end` (now, or its balance spent):
/// moves the deadlines it held, spends the time. Then brings the accruals
/// up to date. Returns the settled account.
pub fn settle(
    conn: &mut DbConnection,
    mut account: Account,
    now: Millis,
    end_now: bool,
) -> Result<Account, ApiError> {
    if let (Some(since), Some(end)) = (account.vacation_since, ends_at(&account))
        && (end_now || end <= now)
    {
        let stop = now.min(end);
        for row in game::awaiting(conn, &account.id)? {
            if !row.vacation_allowed {
                continue; // its clock did not stop
            }
            let shift = extension(&account, row.turn_started_at, stop);
            if let Some(deadline) = row.deadline_at.filter(|_| shift > 0) {
                game::set_deadline(conn, &row.id, deadline + shift)?;
            }
        }
        account.vacation_balance -= stop - since;
        account.vacation_since = None;
    }
    let (balance, next_grant) = accrue(&account, now);
    account.vacation_balance = balance;
    account.vacation_next_grant_at = next_grant;
    account::set_vacation(
        conn,
        &account.id,
        account.vacation_balance,
        account.vacation_next_grant_at,
        account.vacation_since,
    )?;
    Ok(account)
}

/// Starts a vacation, if there is time for one.
pub fn start(conn: &mut DbConnection, account: Account, now: Millis) -> Result<Account, ApiError> {
    let mut account = settle(conn, account, now, false)?;
    if account.vacation_since.is_some() {
        return Err(ApiError::invalid(
            Code::AlreadyOnVacation,
            "a vacation is under way",
        ));
    }
    if account.vacation_balance <= 0 {
        return Err(ApiError::invalid(
            Code::NoVacationLeft,
            "no vacation time is left",
        ));
    }
    account.vacation_since = Some(now);
    account::set_vacation(
        conn,
        &account.id,
        account.vacation_balance,
        account.vacation_next_grant_at,
        Some(now),
    )?;
    Ok(account)
}

/// Wakes whoever waits on the games of `account_id` under way: a vacation
/// that starts or ends changes what they show (`on_vacation`, the deadline).
pub fn signal_games(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    for id in game::under_way_ids(conn, account_id)? {
        outbox.push(game_signal(&id));
    }
    Ok(())
}

/// The view of a settled account's vacation.
pub fn view(account: &Account, now: Millis) -> VacationView {
    let on_vacation = is_on_vacation(account, now);
    let used = account.vacation_since.map_or(0, |since| now - since);
    VacationView {
        on_vacation,
        balance_days: (account.vacation_balance - used) as f64 / DAY as f64,
        since: account.vacation_since.map(Timestamp),
        ends_at: ends_at(account).map(Timestamp),
        yearly_allowance_days: 30,
        cap_days: CAP / DAY,
    }
}

/// Runs `change` on the account's vacation in one transaction, wakes its
/// games' waiters when it started or ended, and answers its state.
pub fn change(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    account_id: &AccountId,
    change: fn(&mut DbConnection, Account, Millis) -> Result<Account, ApiError>,
    now: Millis,
) -> Result<VacationView, ApiError> {
    write_transaction(conn, |conn| {
        let account = account::find(conn, account_id)?
            .ok_or_else(|| ApiError::NotFound("account".to_owned()))?;
        let since = account.vacation_since;
        let account = change(conn, account, now)?;
        if account.vacation_since != since {
            signal_games(conn, outbox, &account.id)?;
        }
        Ok(view(&account, now))
    })
}
