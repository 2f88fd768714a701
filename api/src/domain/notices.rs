//! What notification mails say: a notice of one event, written when it is
//! sent from what stands then (the event, its game, the names), and the
//! daily digest. Each has a text and an HTML body saying the same, a link
//! to act on, and a footer with the settings and the one-click unsubscribe
//! link.

use jiff::tz::TimeZone;
use kingpost_core::Rules;
use serde_json::Value;

use crate::{
    clock::{HOUR, Millis, SECOND},
    credentials::JwtKeys,
    db::DbConnection,
    error::ApiError,
    models::{
        account, challenge,
        event::{self, EventRow},
        game::{self, GameRow},
        mail::{DIGEST, MailRow},
        notification, tournament,
    },
    stored::{AccountId, ChallengeId, GameId, TournamentId},
    views::{EventKind, GameResult},
};

/// What a mail says: its subject, its text and HTML bodies, and for
/// notifications the link that unsubscribes from them in one click.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub subject: String,
    pub text: String,
    pub html: String,
    pub unsubscribe: Option<String>,
}

/// The links of the web client that mails carry.
#[derive(Debug, Clone, Copy)]
pub struct Links<'a> {
    base: &'a str,
    keys: &'a JwtKeys,
}

/// What the tags of unsubscribe links are made for.
const UNSUBSCRIBE: &str = "unsubscribe";

impl<'a> Links<'a> {
    pub fn new(base: &'a str, keys: &'a JwtKeys) -> Links<'a> {
        Links { base, keys }
    }

    pub fn page(&self, hash: &str) -> String {
        format!("{}/#/{hash}", self.base)
    }

    pub fn game(&self, id: &GameId) -> String {
        self.page(&format!("games/{id}"))
    }

    pub fn tournament(&self, id: &TournamentId) -> String {
        self.page(&format!("tournaments/{id}"))
    }

    /// The one-click unsubscribe link of `account`'s notifications: its id
    /// and a tag only this server can make, so that nobody can unsubscribe
    /// another account and the link needs no sign-in.
    pub fn unsubscribe(&self, account: &AccountId) -> String {
        format!(
            "{}/api/v1/notifications/unsubscribe?token={}",
            self.base,
            unsubscribe_token(self.keys, account)
        )
    }
}

/// The token of `account`'s unsubscribe link: `<account id>.<tag>`.
pub fn unsubscribe_token(keys: &JwtKeys, account: &AccountId) -> String {
    format!("{account}.{}", keys.link_tag(UNSUBSCRIBE, account))
}

/// The account an unsubscribe token names, if this server made it.
pub fn unsubscribing(keys: &JwtKeys, token: &str) -> Option<AccountId> {
    let (account, tag) = token.split_once('.')?;
    keys.is_link_tag(UNSUBSCRIBE, account, tag)
        .then(|| AccountId::from(account))
}

/// Text as HTML shows it.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What one mail says before it is laid out.
#[derive(Debug)]
pub struct Notice {
    pub subject: String,
    /// Paragraphs of plain text.
    pub lines: Vec<String>,
    /// What to do, and where: `("Open the game", url)`.
    pub action: (String, String),
}

/// Lays out `notice` for `account` as a notification mail: text and HTML,
/// with the footer and the unsubscribe link.
pub fn letter(notice: &Notice, links: &Links<'_>, account: &AccountId) -> Letter {
    let unsubscribe = links.unsubscribe(account);
    let settings = links.page("account");
    let (label, url) = &notice.action;
    let mut text = notice.lines.join("\n\n");
    text.push_str(&format!(
        "\n\n{label}: {url}\n\n-- \nYou get this mail because of your notification settings: \
         {settings}\nNo more of these mails (one click): {unsubscribe}\n"
    ));
    let mut html = String::new();
    for line in &notice.lines {
        html.push_str(&format!("<p>{}</p>", escape(line).replace('\n', "<br>")));
    }
    html.push_str(&format!(
        "<p><a href=\"{}\">{}</a></p><hr><p style=\"font-size:small;color:#666\">You get this \
         mail because of your <a href=\"{}\">notification settings</a>. \
         <a href=\"{}\">No more of these mails</a>.</p>",
        escape(url),
        escape(label),
        escape(&settings),
        escape(&unsubscribe),
    ));
    Letter {
        subject: notice.subject.clone(),
        text,
        html,
        unsubscribe: Some(unsubscribe),
    }
}

/// What a queued mail says: a notice is written from its event as things
/// stand (times in the reader's zone), an error if the event is no longer
/// kept; other mails were written when queued.
pub fn compose(
    conn: &mut DbConnection,
    links: &Links<'_>,
    mail: &MailRow,
) -> Result<Letter, ApiError> {
    if mail.event_id.is_none() {
        let notification = mail.kind == DIGEST;
        return Ok(Letter {
            subject: mail.subject.clone(),
            text: mail.text_body.clone(),
            html: mail.html_body.clone(),
            unsubscribe: notification.then(|| links.unsubscribe(&mail.account_id)),
        });
    }
    let zone = notification::find(conn, &mail.account_id)?
        .and_then(|row| TimeZone::get(&row.time_zone).ok())
        .unwrap_or(TimeZone::UTC);
    let zone = &zone;
    let Some(event) = mail
        .event_id
        .map(|id| event::find(conn, id))
        .transpose()?
        .flatten()
    else {
        return Err(ApiError::Internal(format!(
            "mail {}: its event is no longer kept",
            mail.id
        )));
    };
    let notice = notice(conn, links, &event, zone)?;
    Ok(letter(&notice, links, &mail.account_id))
}

/// What an event says to the account it is for.
pub fn notice(
    conn: &mut DbConnection,
    links: &Links<'_>,
    event: &EventRow,
    zone: &TimeZone,
) -> Result<Notice, ApiError> {
    let game = match &event.game_id {
        Some(id) => game::find(conn, id)?,
        None => None,
    };
    notice_of(conn, links, event, game.as_ref(), zone)
}

/// As [`notice`], with the event's game already read (by a caller that
/// reads a batch's games at once).
pub fn notice_of(
    conn: &mut DbConnection,
    links: &Links<'_>,
    event: &EventRow,
    game: Option<&GameRow>,
    zone: &TimeZone,
) -> Result<Notice, ApiError> {
    let data = serde_json::from_str::<Value>(&event.data).unwrap_or(Value::Null);
    let text = |key: &str| data[key].as_str().unwrap_or_default().to_owned();
    let me = &event.account_id;
    if let Some(game) = game {
        let opponent = opponent_name(game, me);
        let open = ("Open the game".to_owned(), links.game(&game.id));
        let about = format!("your game against {opponent}{}", rules_words(game.rules.0));
        let notice = |subject: String, lines: Vec<String>| Notice {
            subject,
            lines,
            action: open.clone(),
        };
        return Ok(match event.kind {
            EventKind::OpponentMoved => {
                let ply = data["ply"].as_i64().unwrap_or_default();
                let played = format!("{}{}", move_number(ply), text("san"));
                notice(
                    format!("Your move against {opponent}: {played}"),
                    vec![
                        format!("{opponent} played {played} in {about}."),
                        deadline_line(game, zone),
                    ],
                )
            }
            EventKind::GameStarted => {
                let colour = if game.white_id.as_ref() == Some(me) {
                    "White"
                } else {
                    "Black"
                };
                let first = if game.to_move_id.as_ref() == Some(me) {
                    "You move first.".to_owned()
                } else {
                    format!("{opponent} moves first.")
                };
                notice(
                    format!("A game against {opponent} started"),
                    vec![format!(
                        "{} started: you play {colour}. {first}",
                        capitalized(&about)
                    )],
                )
            }
            EventKind::DrawOffered => notice(
                format!("{opponent} offers a draw"),
                vec![format!(
                    "{opponent} offers a draw in {about}: accept or decline it from the game, \
                     or play on."
                )],
            ),
            EventKind::GameFinished => notice(
                format!("Your game against {opponent} ended: {}", outcome(game, me)),
                vec![format!(
                    "{} ended: {} ({}).",
                    capitalized(&about),
                    outcome(game, me),
                    text("termination").replace('_', " ")
                )],
            ),
            EventKind::DeadlineNear => {
                let left = data["time_left_seconds"].as_i64().unwrap_or_default() * SECOND;
                notice(
                    format!("{} left to move against {opponent}", duration(left)),
                    vec![
                        format!("Your move in {about} is due soon."),
                        deadline_line(game, zone),
                    ],
                )
            }
            EventKind::MessageReceived => {
                let said = data["message"]["text"].as_str().unwrap_or_default();
                notice(
                    format!("{opponent} wrote to you"),
                    vec![format!("{opponent} wrote in {about}:"), said.to_owned()],
                )
            }
            _ => notice(
                format!("News of your game against {opponent}"),
                vec![format!(
                    "{}: {}.",
                    capitalized(&about),
                    event.kind.key().replace('_', " ")
                )],
            ),
        });
    }
    Ok(match event.kind {
        EventKind::ChallengeReceived => {
            let challenger =
                match challenge::find(conn, &ChallengeId::from(text("challenge_id").as_str()))? {
                    Some(row) => name_of(conn, &row.challenger_id)?,
                    None => "A player".to_owned(),
                };
            let rules = data["rules"]
                .as_str()
                .and_then(|key| key.parse::<Rules>().ok());
            let days = data["days_per_move"].as_i64().unwrap_or_default();
            let rated = if data["rated"].as_bool() == Some(true) {
                "rated"
            } else {
                "casual"
            };
            Notice {
                subject: format!("{challenger} challenges you"),
                lines: vec![format!(
                    "{challenger} challenges you to a {rated} game{}, {days} {} a move.",
                    rules.map(rules_words).unwrap_or_default(),
                    if days == 1 { "day" } else { "days" },
                )],
                action: ("See the challenge".to_owned(), links.page("")),
            }
        }
        EventKind::TournamentStarted | EventKind::TournamentRound => {
            let id = TournamentId::from(text("tournament_id").as_str());
            let name =
                tournament::find(conn, &id)?.map_or_else(|| "A tournament".to_owned(), |t| t.name);
            let games = data["games"].as_i64().unwrap_or_default();
            let line = match data["round"].as_i64() {
                // A Swiss: a round at a time.
                Some(round) if data["bye"] == true || (round == 1 && games == 0) => format!(
                    "Round {round} of {name} is paired: you have the bye (a point) this round."
                ),
                Some(round) => {
                    format!("Round {round} of {name} is paired: your game is under way.")
                }
                None => format!("{name} started: your {games} games are under way."),
            };
            let subject = match data["round"].as_i64() {
                Some(round) if round > 1 => format!("{name}: round {round}"),
                _ => format!("{name} started"),
            };
            Notice {
                subject,
                lines: vec![line],
                action: ("Open the tournament".to_owned(), links.tournament(&id)),
            }
        }
        EventKind::TeamMatchStarted => {
            let id = TournamentId::from(text("tournament_id").as_str());
            let name =
                tournament::find(conn, &id)?.map_or_else(|| "A team match".to_owned(), |t| t.name);
            let board = data["board"].as_i64().unwrap_or_default();
            Notice {
                subject: format!("{name} started"),
                lines: vec![format!(
                    "{name} started: you play board {board}, two games at once, one with each colour."
                )],
                action: ("Open the match".to_owned(), links.tournament(&id)),
            }
        }
        EventKind::TeamMatchFinished => {
            let id = TournamentId::from(text("tournament_id").as_str());
            let (home, away) = (text("home"), text("away"));
            let points = |key: &str| data[key].as_f64().unwrap_or_default();
            Notice {
                subject: format!("{home} - {away} finished"),
                lines: vec![format!(
                    "The match {home} - {away} finished {} - {}.",
                    points("home_points"),
                    points("away_points")
                )],
                action: ("Open the match".to_owned(), links.tournament(&id)),
            }
        }
        EventKind::TeamInvited => {
            let team = text("team");
            Notice {
                subject: format!("You are invited to join {team}"),
                lines: vec![format!(
                    "A captain of {team} invites you to join the team and play its matches."
                )],
                action: (
                    "See the team".to_owned(),
                    links.page(&format!("teams/{}", text("team_id"))),
                ),
            }
        }
        kind => Notice {
            subject: format!("kingpost: {}", kind.key().replace('_', " ")),
            lines: vec![format!(
                "Something happened: {}.",
                kind.key().replace('_', " ")
            )],
            action: ("Open kingpost".to_owned(), links.page("")),
        },
    })
}

/// The daily digest: every game the account is to move in, the nearest
/// deadline first, and the events since the last digest; none when there
/// is nothing to tell.
pub fn digest(
    conn: &mut DbConnection,
    links: &Links<'_>,
    account: &AccountId,
    kinds: &[EventKind],
    since: Millis,
    zone: &TimeZone,
) -> Result<Option<Letter>, ApiError> {
    const GAMES_LISTED: usize = 200;
    const EVENTS_LISTED: i64 = 50;
    let mut to_move = game::awaiting(conn, account)?;
    to_move.sort_by_key(|game| (game.deadline_at.unwrap_or(i64::MAX), game.id.clone()));
    let events = event::of_kinds_since(conn, account, kinds, since, EVENTS_LISTED)?;
    if to_move.is_empty() && events.is_empty() {
        return Ok(None);
    }
    let mut lines = Vec::new();
    if !to_move.is_empty() {
        lines.push(format!(
            "Your move in {} {}:",
            to_move.len(),
            if to_move.len() == 1 { "game" } else { "games" }
        ));
        let mut list: Vec<String> = to_move
            .iter()
            .take(GAMES_LISTED)
            .map(|game| {
                let left = game.deadline_at.map_or(String::new(), |at| {
                    format!(", due {}", local_time(at, zone))
                });
                format!(
                    "- against {}{left}: {}",
                    opponent_name(game, account),
                    links.game(&game.id)
                )
            })
            .collect();
        if to_move.len() > GAMES_LISTED {
            list.push(format!("- and {} more", to_move.len() - GAMES_LISTED));
        }
        lines.push(list.join("\n"));
    }
    if !events.is_empty() {
        lines.push(format!("Since {}:", local_time(since, zone)));
        let mut told = Vec::new();
        for event in &events {
            let notice = notice(conn, links, event, zone)?;
            told.push(format!("- {}", notice.subject));
        }
        lines.push(told.join("\n"));
    }
    let subject = match to_move.len() {
        0 => "kingpost: what happened today".to_owned(),
        1 => "kingpost: your move in 1 game".to_owned(),
        n => format!("kingpost: your move in {n} games"),
    };
    let notice = Notice {
        subject,
        lines,
        action: ("Open your games".to_owned(), links.page("")),
    };
    Ok(Some(letter(&notice, links, account)))
}

fn opponent_name(game: &GameRow, me: &AccountId) -> String {
    if game.white_id.as_ref() == Some(me) {
        game.black_name.clone()
    } else {
        game.white_name.clone()
    }
}

fn name_of(conn: &mut DbConnection, id: &AccountId) -> Result<String, ApiError> {
    Ok(account::find(conn, id)?.map_or_else(|| "A player".to_owned(), |a| a.username))
}

/// `text` with its first letter upper case: a sentence's start.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// " of Teleporting Kings", nothing for standard chess.
fn rules_words(rules: Rules) -> String {
    match rules {
        Rules::Standard => String::new(),
        other => format!(" of {}", other.pgn_name(false)),
    }
}

/// "12." before White's twelfth move, "12..." before Black's.
fn move_number(ply: i64) -> String {
    let number = (ply + 1) / 2;
    if ply % 2 == 1 {
        format!("{number}. ")
    } else {
        format!("{number}... ")
    }
}

/// The game's result as the account reads it.
fn outcome(game: &GameRow, me: &AccountId) -> &'static str {
    let white = game.white_id.as_ref() == Some(me);
    match game.result {
        Some(GameResult::Draw) => "a draw",
        Some(GameResult::WhiteWon) if white => "you won",
        Some(GameResult::BlackWon) if !white => "you won",
        Some(GameResult::WhiteWon | GameResult::BlackWon) => "you lost",
        _ => "no result",
    }
}

fn deadline_line(game: &GameRow, zone: &TimeZone) -> String {
    match game.deadline_at {
        Some(at) => format!("Your deadline: {}.", local_time(at, zone)),
        None => "The game has no deadline.".to_owned(),
    }
}

/// A moment in the reader's time zone: "Sat 5 Dec 2026, 14:30 CET".
pub fn local_time(at: Millis, zone: &TimeZone) -> String {
    jiff::Timestamp::from_millisecond(at)
        .map(|t| {
            t.to_zoned(zone.clone())
                .strftime("%a %-d %b %Y, %H:%M %Z")
                .to_string()
        })
        .unwrap_or_default()
}

/// "23 hours", "45 minutes".
fn duration(left: Millis) -> String {
    let hours = left / HOUR;
    if hours >= 1 {
        format!("{hours} {}", if hours == 1 { "hour" } else { "hours" })
    } else {
        let minutes = (left / (60 * SECOND)).max(1);
        format!(
            "{minutes} {}",
            if minutes == 1 { "minute" } else { "minutes" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers_read_as_in_pgn() {
        assert_eq!(move_number(1), "1. ");
        assert_eq!(move_number(2), "1... ");
        assert_eq!(move_number(23), "12. ");
        assert_eq!(move_number(24), "12... ");
    }

    #[test]
    fn times_show_in_the_readers_zone_with_its_summer_time() {
        let paris = TimeZone::get("Europe/Paris").unwrap();
        // 2026-07-01T12:00:00Z and 2026-12-01T12:00:00Z.
        assert_eq!(
            local_time(1_782_907_200_000, &paris),
            "Wed 1 Jul 2026, 14:00 CEST"
        );
        assert_eq!(
            local_time(1_796_126_400_000, &paris),
            "Tue 1 Dec 2026, 13:00 CET"
        );
    }

    #[test]
    fn durations_round_down_to_what_is_surely_left() {
        assert_eq!(duration(23 * HOUR + 59 * 60 * SECOND), "23 hours");
        assert_eq!(duration(HOUR), "1 hour");
        assert_eq!(duration(59 * 60 * SECOND), "59 minutes");
        assert_eq!(duration(SECOND), "1 minute");
    }
}
