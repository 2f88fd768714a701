//! The rating maths: Glicko-2 with Glickman's constants, a finished game a
//! rating period of its own, and the deviation's growth while a player rests.

use skillratings::{
    Outcomes,
    glicko2::{Glicko2Config, Glicko2Rating, decay_deviation, glicko2_rating_period},
};

use crate::{
    clock::{DAY, Millis},
    models::rating::RatingRow,
};

/// The rating period: a deviation grows by one period's step for every
/// whole period without a rated game in the pool. A month, since a
/// correspondence player finishes a few games in one.
pub const PERIOD: Millis = 30 * DAY;

/// A deviation at or above this is provisional: shown with a mark, kept
/// off the leaderboards (lichess's threshold).
pub const PROVISIONAL: f64 = 110.0;

/// Glickman's suggested constants: tau 0.5, convergence 0.000001.
const CONFIG: Glicko2Config = Glicko2Config::new();

/// Glicko-2's scale factor between the rating scale and its own.
const SCALE: f64 = 173.7178;

/// A player's rating after a rating period of `results` (each an
/// opponent's rating and the player's outcome against them). Each finished
/// game is a period of its own: correspondence games end one by one, and a
/// rating waiting for a month's batch would say little.
pub fn rate(player: &Glicko2Rating, results: &[(Glicko2Rating, Outcomes)]) -> Glicko2Rating {
    glicko2_rating_period(player, results, &CONFIG)
}

fn glicko(row: &RatingRow) -> Glicko2Rating {
    Glicko2Rating {
        rating: row.rating,
        deviation: row.deviation,
        volatility: row.volatility,
    }
}

/// A rating as of `now`: its deviation grown for each whole period since
/// its last rated game (up to the starting 350).
pub fn current(row: &RatingRow, now: Millis) -> Glicko2Rating {
    let mut rating = glicko(row);
    let periods = (now - row.rated_at).max(0) / PERIOD;
    for _ in 0..periods {
        if rating.deviation >= Glicko2Rating::new().deviation {
            break;
        }
        rating = decay_deviation(&rating);
    }
    rating
}

/// Until when a rating left at `rated_at` stays established: after `n`
/// whole periods its deviation is `sqrt(phi^2 + n sigma^2)` (on Glicko-2's
/// scale), so it turns provisional at the first `n` where that reaches the
/// threshold. `None` when it is provisional already.
pub fn established_until(rating: &Glicko2Rating, rated_at: Millis) -> Option<Millis> {
    if rating.deviation >= PROVISIONAL {
        return None;
    }
    let phi = rating.deviation / SCALE;
    let threshold = PROVISIONAL / SCALE;
    let sigma = rating.volatility.max(f64::MIN_POSITIVE);
    // At least one period; at most a thousand years of them.
    let periods = ((threshold * threshold - phi * phi) / (sigma * sigma))
        .ceil()
        .clamp(1.0, 12_000.0) as i64;
    Some(rated_at + periods * PERIOD)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::RatedStart;

    fn rating(rating: f64, deviation: f64, volatility: f64) -> Glicko2Rating {
        Glicko2Rating {
            rating,
            deviation,
            volatility,
        }
    }

    // Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf):
    // a 1500 player (RD 200, volatility 0.06), tau 0.5, beats a 1400 (RD 30)
    // and loses to a 1550 (RD 100) and a 1700 (RD 300) in one period.
    #[test]
    fn glickmans_worked_example() {
        let after = rate(
            &rating(1500.0, 200.0, 0.06),
            &[
                (rating(1400.0, 30.0, 0.06), Outcomes::WIN),
                (rating(1550.0, 100.0, 0.06), Outcomes::LOSS),
                (rating(1700.0, 300.0, 0.06), Outcomes::LOSS),
            ],
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    // A new player meeting a new player: the paper's formulas give both
    // the same step, one up and one down, and a smaller deviation.
    #[test]
    fn one_game_moves_both_sides_alike() {
        let fresh = Glicko2Rating::new();
        let winner = rate(&fresh, &[(fresh, Outcomes::WIN)]);
        let loser = rate(&fresh, &[(fresh, Outcomes::LOSS)]);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        assert!((winner.rating - 1500.0 - (1500.0 - loser.rating)).abs() < 1e-9);
        assert!(winner.deviation < 350.0);
    }

    fn row_of(rating: Glicko2Rating, rated_at: Millis) -> RatingRow {
        RatingRow {
            account_id: "someone".into(),
            rules: kingpost_core::Rules::Standard.into(),
            start: RatedStart::Standard,
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
            games: 10,
            rated_at,
            established_until: established_until(&rating, rated_at),
        }
    }

    // The deviation grows one step per whole period of inactivity, as
    // `decay_deviation` takes it, and not within a period.
    #[test]
    fn deviation_grows_per_whole_period() {
        let row = row_of(rating(1700.0, 60.0, 0.06), 0);
        assert_eq!(current(&row, PERIOD - 1).deviation, 60.0);
        let once = decay_deviation(&rating(1700.0, 60.0, 0.06));
        assert_eq!(current(&row, PERIOD).deviation, once.deviation);
        assert_eq!(
            current(&row, 3 * PERIOD).deviation,
            decay_deviation(&decay_deviation(&once)).deviation
        );
        assert_eq!(current(&row, 100_000 * PERIOD).deviation, 350.0);
    }

    // `established_until` is exactly the first moment `current` shows a
    // provisional deviation, for ratings near and far from the threshold.
    #[test]
    fn established_until_agrees_with_the_growing_deviation() {
        for (deviation, volatility) in [(60.0, 0.06), (109.9, 0.06), (80.0, 0.09), (50.0, 0.03)] {
            let row = row_of(rating(1600.0, deviation, volatility), 1_000);
            let until = row.established_until.expect("established");
            assert!(current(&row, until - 1).deviation < PROVISIONAL, "{row:?}");
            assert!(current(&row, until).deviation >= PROVISIONAL, "{row:?}");
        }
        assert_eq!(established_until(&rating(1600.0, 110.0, 0.06), 0), None);
    }
}
