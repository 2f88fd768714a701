//! A player as anyone may see them: ratings, results, activity.

use std::collections::BTreeMap;

use kingpost_core::Color;

use crate::{
    clock::Millis,
    db::DbConnection,
    domain::{ratings, vacation},
    error::ApiError,
    models::{
        account,
        game::{self, GameResult},
        rating,
    },
    views::{RecordView, Timestamp, UserProfile},
};

pub fn profile(
    conn: &mut DbConnection,
    username: &str,
    now: Millis,
) -> Result<UserProfile, ApiError> {
    let account = account::find_by_username(conn, username)?
        .ok_or_else(|| ApiError::NotFound(format!("account `{username}`")))?;
    let ratings = rating::of_account(conn, &account.id)?
        .iter()
        .map(|row| ratings::view(row, now))
        .collect();
    let mut records = BTreeMap::new();
    for (rules, color, result, n) in game::results_of(conn, &account.id)? {
        let record = records.entry(rules.0.key()).or_insert(RecordView {
            rules,
            wins: 0,
            draws: 0,
            losses: 0,
        });
        let won = match (result, color) {
            (GameResult::Draw, _) => None,
            (GameResult::WhiteWon, Color::White) | (GameResult::BlackWon, Color::Black) => {
                Some(true)
            }
            (GameResult::WhiteWon | GameResult::BlackWon, _) => Some(false),
            (GameResult::Unknown, _) => continue,
        };
        match won {
            Some(true) => record.wins += n,
            Some(false) => record.losses += n,
            None => record.draws += n,
        }
    }
    Ok(UserProfile {
        games_under_way: game::count_under_way(conn, &account.id)?,
        on_vacation: vacation::is_on_vacation(&account, now),
        last_active_at: account.last_active_at.map(Timestamp),
        created_at: Timestamp(account.created_at),
        bot: account.bot,
        username: account.username,
        ratings,
        records: records.into_values().collect(),
    })
}
