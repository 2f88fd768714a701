//! The clocks that carry time over: each player's bank, what a move uses
//! of it and adds to it, and the deadline it sets. Days per move (the
//! default) needs none of this: each move gets its days afresh.

use std::ops::RangeInclusive;

use kingpost_core::Color;

use crate::{
    clock::{DAY, Millis, SECOND},
    error::{ApiError, Code},
    models::game::GameRow,
    views::{ClockSpec, ClockView},
};

/// The moves of a control, and the days they are played in.
pub const CONTROL_MOVES: RangeInclusive<i32> = 1..=50;
pub const CONTROL_DAYS: RangeInclusive<i32> = 1..=365;
/// A bank's days at the start, added a move, and held at most (from the
/// start's days).
pub const BANK_INITIAL_DAYS: RangeInclusive<i32> = 1..=180;
pub const BANK_INCREMENT_DAYS: RangeInclusive<i32> = 0..=30;
pub const BANK_MAX_DAYS: i32 = 365;

/// Checks the bounds the spec documents.
pub fn check(spec: &ClockSpec) -> Result<(), ApiError> {
    let ok = match *spec {
        ClockSpec::Control { moves, days } => {
            CONTROL_MOVES.contains(&moves) && CONTROL_DAYS.contains(&days)
        }
        ClockSpec::Bank {
            initial_days,
            increment_days,
            max_days,
        } => {
            BANK_INITIAL_DAYS.contains(&initial_days)
                && BANK_INCREMENT_DAYS.contains(&increment_days)
                && (initial_days..=BANK_MAX_DAYS).contains(&max_days)
        }
    };
    if ok {
        Ok(())
    } else {
        Err(ApiError::invalid(
            Code::InvalidClock,
            "a control is 1 to 50 moves in 1 to 365 days; a bank starts with 1 to 180 days, \
             adds 0 to 30 a move and holds at most max_days, from the start's days to 365",
        ))
    }
}

/// The spec as stored (JSON).
pub fn stored(spec: &ClockSpec) -> String {
    serde_json::to_string(spec).expect("a clock spec serialises")
}

/// A stored clock (a game's, a challenge's, a tournament's: `owner`
/// names it in the error), if there is one beside days per move.
pub fn parse(
    stored: Option<&str>,
    owner: impl std::fmt::Display,
) -> Result<Option<ClockSpec>, ApiError> {
    stored
        .map(|text| {
            serde_json::from_str(text)
                .map_err(|e| ApiError::Internal(format!("{owner}: unreadable clock: {e}")))
        })
        .transpose()
}

/// The game's clock, if it has one beside days per move.
pub fn of_row(row: &GameRow) -> Result<Option<ClockSpec>, ApiError> {
    parse(row.clock.as_deref(), format_args!("game {}", row.id))
}

/// Puts a new game under `spec`: both banks full (the first mover's as its
/// deadline), no days per move.
pub fn start(row: &mut GameRow, spec: &ClockSpec, now: Millis) {
    let bank = initial_bank(spec);
    row.clock = Some(stored(spec));
    row.waiting_bank = Some(bank);
    row.days_per_move = 0;
    if row.deadline_at.is_some() {
        row.deadline_at = Some(now + bank);
    }
}

/// The banks after the side to move played ply `row.ply` (already
/// counted) with `left` of its time to spare: its bank, what its move
/// adds, waits; the opponent's bank becomes its deadline.
pub fn pass_turn(row: &mut GameRow, spec: &ClockSpec, left: Millis, now: Millis) {
    let mover_bank = after_move(spec, left, 0, moves_made_at(row.ply));
    let next_bank = row.waiting_bank.unwrap_or_else(|| initial_bank(spec));
    row.deadline_at = Some(now + next_bank);
    row.waiting_bank = Some(mover_bank);
}

/// What each player's bank holds at the start.
pub fn initial_bank(spec: &ClockSpec) -> Millis {
    match *spec {
        ClockSpec::Control { days, .. } => i64::from(days) * DAY,
        ClockSpec::Bank { initial_days, .. } => i64::from(initial_days) * DAY,
    }
}

/// The bank after a player's move that used `used` of `bank` and was that
/// player's `moves_made`th: a control adds its days after every
/// `moves`th move, a bank its increment up to its cap.
pub fn after_move(spec: &ClockSpec, bank: Millis, used: Millis, moves_made: i32) -> Millis {
    let left = (bank - used).max(0);
    match *spec {
        ClockSpec::Control { moves, days } if moves_made % moves == 0 => {
            left + i64::from(days) * DAY
        }
        ClockSpec::Control { .. } => left,
        ClockSpec::Bank {
            increment_days,
            max_days,
            ..
        } => (left + i64::from(increment_days) * DAY).min(i64::from(max_days) * DAY),
    }
}

/// The moves the side that made ply `ply` has made by then: plies
/// alternate, so they are the plies of `ply`'s parity up to it.
pub fn moves_made_at(ply: i32) -> i32 {
    (ply + 1) / 2
}

/// The clock as the game view shows it: the side to move's time to its
/// `deadline` (vacation counted; none once the game is over), the other
/// side's bank as its last move left it.
pub fn view(
    spec: ClockSpec,
    row: &GameRow,
    turn: Color,
    deadline: Option<Millis>,
    now: Millis,
) -> ClockView {
    let waiting = row.waiting_bank.map(|bank| bank.max(0) / SECOND);
    let to_move = deadline.map(|deadline| (deadline - now).max(0) / SECOND);
    let (white_seconds, black_seconds) = match turn {
        Color::White => (to_move, waiting),
        Color::Black => (waiting, to_move),
    };
    let moves_to_control = match spec {
        ClockSpec::Control { moves, .. } if deadline.is_some() => {
            // The side to move is about to make ply `row.ply + 1`.
            let made = moves_made_at(row.ply + 1) - 1;
            Some(moves - made % moves)
        }
        _ => None,
    };
    ClockView {
        spec,
        white_seconds,
        black_seconds,
        moves_to_control,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ICCF's 10 moves in 50 days: unused time carries over, 50 days more
    // after the 10th and 20th moves.
    #[test]
    fn a_control_adds_its_days_after_every_nth_move() {
        let spec = ClockSpec::Control {
            moves: 10,
            days: 50,
        };
        let mut bank = initial_bank(&spec);
        assert_eq!(bank, 50 * DAY);
        for made in 1..=9 {
            bank = after_move(&spec, bank, 2 * DAY, made);
        }
        assert_eq!(bank, 32 * DAY);
        bank = after_move(&spec, bank, 2 * DAY, 10);
        assert_eq!(bank, 80 * DAY, "30 days left carried over, 50 added");
        bank = after_move(&spec, bank, 10 * DAY, 11);
        assert_eq!(bank, 70 * DAY);
    }

    #[test]
    fn a_bank_adds_its_increment_up_to_its_cap() {
        let spec = ClockSpec::Bank {
            initial_days: 7,
            increment_days: 2,
            max_days: 10,
        };
        let bank = after_move(&spec, initial_bank(&spec), DAY, 1);
        assert_eq!(bank, 8 * DAY);
        assert_eq!(after_move(&spec, bank, 0, 2), 10 * DAY, "capped");
    }

    #[test]
    fn moves_made_count_the_plies_of_one_side() {
        // White's moves are plies 1, 3, 5; Black's 2, 4, 6.
        assert_eq!([1, 2, 3, 4, 5, 6].map(moves_made_at), [1, 1, 2, 2, 3, 3]);
    }

    #[test]
    fn bounds_are_checked() {
        assert!(
            check(&ClockSpec::Control {
                moves: 10,
                days: 50
            })
            .is_ok()
        );
        assert!(check(&ClockSpec::Control { moves: 0, days: 50 }).is_err());
        let bank = |initial_days, increment_days, max_days| ClockSpec::Bank {
            initial_days,
            increment_days,
            max_days,
        };
        assert!(check(&bank(7, 1, 14)).is_ok());
        assert!(check(&bank(7, 1, 6)).is_err(), "a cap below the start");
        assert!(check(&bank(7, 31, 14)).is_err());
    }
}
