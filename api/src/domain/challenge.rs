//! Challenges: made, accepted into a game, declined or cancelled.

use kingpost_core::{CHESS960_COUNT, Position, Rules, SHUFFLE_COUNT};
use rand::Rng;
use serde_json::json;

use crate::{
    clock::Millis,
    credentials::new_id,
    db::{DbConnection, write_transaction},
    domain::{
        bots, cursor,
        events::{self},
        game::{
            self as play, Players, Setup, clock, core_start, spec_from_parts, stored_start,
            variant_name,
        },
        messages, ratings,
    },
    error::{ApiError, Code},
    models::{
        account,
        challenge::{self, ChallengeRow, SeekFilter},
        game::StartKind,
    },
    notify::{Outbox, seeks_signal},
    stored::{AccountId, ChallengeId, GameId},
    views::{
        ChallengeList, ChallengeStatus, ChallengeView, ClockSpec, ColorChoice,
        CreateChallengeRequest, DAYS_PER_MOVE, EventKind, IncomingChallenges, PlayerView,
        RatingRange, RuleKey, SeekList, SeekQuery, StartSpec, Timestamp,
    },
};

/// The time a challenge (or a tournament) asks for: days per move (one of
/// the [`DAYS_PER_MOVE`]), or a clock (0 days per move), never both.
pub fn timing(
    days_per_move: Option<i32>,
    clock: Option<ClockSpec>,
) -> Result<(i32, Option<ClockSpec>), ApiError> {
    match (days_per_move, clock) {
        (Some(days), None) if DAYS_PER_MOVE.contains(&days) => Ok((days, None)),
        (Some(_), None) => Err(ApiError::invalid(
            Code::InvalidDaysPerMove,
            format!("days_per_move must be one of {DAYS_PER_MOVE:?}"),
        )),
        (None, Some(spec)) => clock::check(&spec).map(|()| (0, Some(spec))),
        _ => Err(ApiError::invalid(
            Code::InvalidClock,
            "give days_per_move or a clock, not both",
        )),
    }
}

/// A rule set's key, or why it is none.
pub fn rules_of(key: &str) -> Result<Rules, ApiError> {
    key.parse().map_err(|e: kingpost_core::UnknownRules| {
        ApiError::invalid(Code::UnknownRules, e.to_string())
    })
}

/// A start with its number drawn if left out (Chess960, Shuffle), checked
/// under the rules.
pub fn draw_start(rules: Rules, start: &StartSpec) -> Result<StartSpec, ApiError> {
    let mut rng = rand::rng();
    let start = match start.clone() {
        StartSpec::Chess960 { id: None } => StartSpec::Chess960 {
            id: Some(rng.random_range(0..CHESS960_COUNT)),
        },
        StartSpec::Shuffle { id: None } => StartSpec::Shuffle {
            id: Some(rng.random_range(0..SHUFFLE_COUNT)),
        },
        other => other,
    };
    let position = Position::from_start(rules, &core_start(&start))
        .map_err(|e| ApiError::invalid(Code::InvalidStart, e.to_string()))?;
    // A game from it would be over before a move, and a tournament of such
    // games would wait for them for ever.
    if let Some(outcome) = position.outcome() {
        return Err(ApiError::invalid(
            Code::InvalidStart,
            format!(
                "the position is over already ({outcome}): a game must start with a move to play"
            ),
        ));
    }
    Ok(start)
}

/// The most open challenges an account may have made to players at once,
/// and to anyone (seeks).
pub const MAX_OPEN_CHALLENGES: i64 = 50;
pub const MAX_OPEN_SEEKS: i64 = 10;

/// Refuses a challenge past the challenger's caps.
fn check_room(conn: &mut DbConnection, challenger: &AccountId, seek: bool) -> Result<(), ApiError> {
    let (seeks, addressed) = challenge::open_counts(conn, challenger)?;
    let (held, most, what) = match seek {
        true => (seeks, MAX_OPEN_SEEKS, "seeks"),
        false => (addressed, MAX_OPEN_CHALLENGES, "challenges to players"),
    };
    if held >= most {
        return Err(ApiError::invalid(
            Code::TooManyChallenges,
            format!("an account has at most {most} open {what}: cancel one first"),
        ));
    }
    Ok(())
}

pub fn create(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    challenger_id: &AccountId,
    request: &CreateChallengeRequest,
) -> Result<ChallengeId, ApiError> {
    let rules = rules_of(&request.rules)?;
    let start = draw_start(rules, &request.start)?;
    let (days_per_move, clock_spec) = timing(request.days_per_move, request.clock)?;
    let opponent_id = match &request.opponent {
        None => None,
        Some(username) => {
            let opponent = account::find_by_username(conn, username)?
                .ok_or_else(|| ApiError::NotFound(format!("account `{username}`")))?;
            if opponent.id == *challenger_id {
                return Err(ApiError::invalid(
                    Code::SelfChallenge,
                    "you cannot challenge yourself",
                ));
            }
            if messages::has_muted(conn, &opponent.id, challenger_id)? {
                return Err(ApiError::Forbidden(format!(
                    "{username} does not accept challenges from you"
                )));
            }
            Some(opponent.id)
        }
    };
    let (kind, number, fen) = stored_start(&start);
    bots::check_rated(
        conn,
        request.rated,
        challenger_id,
        opponent_id.as_ref().unwrap_or(challenger_id),
    )?;
    if request.rated {
        ratings::rated_pool(kind)?;
    }
    if let Some(range) = request.rating_range {
        check_range(range, kind, opponent_id.is_some())?;
    }
    let row = ChallengeRow {
        id: new_id().into(),
        challenger_id: challenger_id.clone(),
        opponent_id,
        rules: rules.into(),
        start_kind: kind,
        start_number: number,
        start_fen: fen,
        days_per_move,
        clock: clock_spec.as_ref().map(clock::stored),
        color: request.color,
        status: ChallengeStatus::Open,
        rated: request.rated,
        rating_min: request.rating_range.map(|r| r.min),
        rating_max: request.rating_range.map(|r| r.max),
        game_id: None,
        created_at: now,
        updated_at: now,
    };
    write_transaction(conn, |conn| {
        check_room(conn, challenger_id, row.opponent_id.is_none())?;
        challenge::insert(conn, &row)?;
        if row.opponent_id.is_none() {
            outbox.push(seeks_signal());
        }
        if let Some(opponent) = &row.opponent_id {
            let data = json!({"challenge_id": row.id, "rules": row.rules, "days_per_move": row.days_per_move, "rated": row.rated});
            events::record(
                conn,
                outbox,
                now,
                opponent,
                EventKind::ChallengeReceived,
                None,
                data,
            )?;
        }
        Ok::<_, ApiError>(())
    })?;
    Ok(row.id)
}

/// The highest rating a range may name.
const RATING_CEILING: i32 = 4000;

/// A seek's range: ordered, within 0..=4000, on a challenge open to anyone
/// from a start that has a pool.
pub fn check_range(range: RatingRange, kind: StartKind, addressed: bool) -> Result<(), ApiError> {
    let bad = |detail: &str| Err(ApiError::invalid(Code::InvalidRatingRange, detail));
    if addressed {
        return bad("a rating range is for a challenge open to anyone");
    }
    if ratings::rated_start(kind).is_none() {
        return bad("a game from a FEN start has no rating pool to range over");
    }
    if !(0..=RATING_CEILING).contains(&range.min)
        || !(0..=RATING_CEILING).contains(&range.max)
        || range.min > range.max
    {
        return bad("the range is min..max, 0 to 4000, min not above max");
    }
    Ok(())
}

/// Refuses an acceptor whose rating in the seek's pool is outside its range.
fn check_acceptor(
    conn: &mut DbConnection,
    row: &ChallengeRow,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    let range = RatingRange::of(row.rating_min, row.rating_max);
    check_rating(conn, account_id, row.rules, row.start_kind, range, "seek")
}

/// Refuses `account_id` if its rating in the pool of `rules` and `kind` is
/// outside `range` (a seek's or a tournament's, as `what` says).
pub fn check_rating(
    conn: &mut DbConnection,
    account_id: &AccountId,
    rules: RuleKey,
    kind: StartKind,
    range: Option<RatingRange>,
    what: &str,
) -> Result<(), ApiError> {
    let (Some(RatingRange { min, max }), Some(start)) = (range, ratings::rated_start(kind)) else {
        return Ok(());
    };
    let rating = ratings::rating_in(conn, account_id, rules, start)?;
    if (f64::from(min)..=f64::from(max)).contains(&rating) {
        return Ok(());
    }
    Err(ApiError::Refused {
        code: Code::OutsideRatingRange,
        detail: format!(
            "this {what} is for ratings {min} to {max}; yours in its pool is {}",
            rating.round()
        ),
    })
}

/// A page of the open seeks `account_id` may accept.
pub fn seeks(
    conn: &mut DbConnection,
    account_id: &AccountId,
    query: &SeekQuery,
    limit: i64,
) -> Result<SeekList, ApiError> {
    let invalid = |e: String| ApiError::invalid(Code::InvalidQuery, e);
    let filter = SeekFilter {
        rules: query
            .rules
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(invalid)?,
        start: query
            .start
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(invalid)?,
        days_per_move: query.days_per_move,
        rated: query.rated,
    };
    let after = query.cursor.as_deref().map(cursor::decode).transpose()?;
    let rows = challenge::seeks(conn, account_id, &filter, after, limit + 1)?;
    let (rows, next_cursor) = page_of(rows, limit);
    Ok(SeekList {
        seeks: views(conn, rows)?,
        next_cursor,
    })
}

/// A page of the open challenges addressed to `account_id`, newest first.
pub fn incoming(
    conn: &mut DbConnection,
    account_id: &AccountId,
    cursor: Option<&str>,
    limit: i64,
) -> Result<IncomingChallenges, ApiError> {
    let after = cursor.map(cursor::decode).transpose()?;
    let rows = challenge::incoming(conn, account_id, after, limit + 1)?;
    let (rows, next_cursor) = page_of(rows, limit);
    Ok(IncomingChallenges {
        challenges: views(conn, rows)?,
        next_cursor,
    })
}

/// A page of rows read one past `limit`, and the cursor of the next page
/// if that one was there.
fn page_of(mut rows: Vec<ChallengeRow>, limit: i64) -> (Vec<ChallengeRow>, Option<String>) {
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = rows
        .last()
        .filter(|_| more)
        .map(|last| cursor::encode(last.created_at, &last.id));
    (rows, next_cursor)
}

/// The clock a challenge asks for, if not days per move.
fn clock_of(row: &ChallengeRow) -> Result<Option<ClockSpec>, ApiError> {
    clock::parse(row.clock.as_deref(), format_args!("challenge {}", row.id))
}

fn find(conn: &mut DbConnection, id: &ChallengeId) -> Result<ChallengeRow, ApiError> {
    challenge::find(conn, id)?.ok_or_else(|| ApiError::NotFound(format!("challenge {id}")))
}

fn start_of(row: &ChallengeRow) -> StartSpec {
    spec_from_parts(
        row.start_kind,
        row.start_number,
        row.start_fen.as_deref().unwrap_or_default(),
    )
}

/// Accepts a challenge: creates the game; returns its id.
pub fn accept(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &ChallengeId,
    account_id: &AccountId,
) -> Result<GameId, ApiError> {
    write_transaction(conn, |conn| {
        let row = find(conn, id)?;
        let addressed = row
            .opponent_id
            .as_ref()
            .is_none_or(|opponent| opponent == account_id);
        if row.challenger_id == *account_id || !addressed {
            return Err(ApiError::Forbidden(
                "this challenge is not addressed to you".to_owned(),
            ));
        }
        if row.status != ChallengeStatus::Open {
            return Err(ApiError::ChallengeClosed);
        }
        check_acceptor(conn, &row, account_id)?;
        bots::check_rated(conn, row.rated, &row.challenger_id, account_id)?;
        let challenger_white = match row.color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => rand::rng().random_bool(0.5),
        };
        let mut name = |id: &AccountId| -> Result<(AccountId, String), ApiError> {
            let account = account::find(conn, id)?
                .ok_or_else(|| ApiError::NotFound(format!("account {id}")))?;
            Ok((account.id, account.username))
        };
        let challenger = name(&row.challenger_id)?;
        let acceptor = name(account_id)?;
        let ((white_id, white_name), (black_id, black_name)) = if challenger_white {
            (challenger, acceptor)
        } else {
            (acceptor, challenger)
        };
        let players = Players {
            white_id,
            white_name,
            black_id,
            black_name,
        };
        let spec = clock_of(&row)?;
        let setup = Setup {
            rules: row.rules.0,
            start: &start_of(&row),
            players,
            days_per_move: row.days_per_move,
            clock: spec.as_ref(),
            rated: row.rated,
            vacation_allowed: true,
        };
        let game = play::open(conn, now, setup)?;
        if !challenge::close(conn, id, ChallengeStatus::Accepted, Some(&game.id), now)? {
            return Err(ApiError::ChallengeClosed);
        }
        if row.opponent_id.is_none() {
            outbox.push(seeks_signal());
        }
        let accepted = json!({"challenge_id": id, "game_id": game.id, "rated": game.rated});
        events::record(
            conn,
            outbox,
            now,
            &row.challenger_id,
            EventKind::ChallengeAccepted,
            Some(&game.id),
            accepted,
        )?;
        let players = [&row.challenger_id, account_id];
        play::tell_started(conn, outbox, now, &game, players, json!({}))?;
        Ok(game.id)
    })
}

/// Declines a challenge addressed to the caller.
pub fn decline(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &ChallengeId,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    let row = find(conn, id)?;
    if row.opponent_id.as_deref() != Some(account_id) {
        return Err(ApiError::Forbidden(
            "only the challenged account can decline".to_owned(),
        ));
    }
    write_transaction(conn, |conn| {
        close_or_conflict(conn, id, ChallengeStatus::Declined, now)?;
        let data = json!({"challenge_id": id});
        events::record(
            conn,
            outbox,
            now,
            &row.challenger_id,
            EventKind::ChallengeDeclined,
            None,
            data,
        )
    })
}

/// Withdraws the caller's own challenge.
pub fn cancel(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &ChallengeId,
    account_id: &AccountId,
) -> Result<(), ApiError> {
    let row = find(conn, id)?;
    if row.challenger_id != *account_id {
        return Err(ApiError::Forbidden(
            "only the challenger can cancel".to_owned(),
        ));
    }
    close_or_conflict(conn, id, ChallengeStatus::Cancelled, now)?;
    if row.opponent_id.is_none() {
        outbox.push(seeks_signal());
    }
    Ok(())
}

fn close_or_conflict(
    conn: &mut DbConnection,
    id: &ChallengeId,
    status: ChallengeStatus,
    now: Millis,
) -> Result<(), ApiError> {
    if challenge::close(conn, id, status, None, now)? {
        Ok(())
    } else {
        Err(ApiError::ChallengeClosed)
    }
}

/// Views of challenge rows, with usernames.
pub fn views(
    conn: &mut DbConnection,
    rows: Vec<ChallengeRow>,
) -> Result<Vec<ChallengeView>, ApiError> {
    let mut ids: Vec<&AccountId> = rows.iter().map(|r| &r.challenger_id).collect();
    ids.extend(rows.iter().filter_map(|r| r.opponent_id.as_ref()));
    let names = account::usernames(conn, &ids)?;
    let bots = account::bots_among(conn, &ids)?;
    let player = |id: &AccountId| {
        names
            .iter()
            .find(|(a, _)| a == id)
            .map(|(_, username)| PlayerView {
                username: username.clone(),
                bot: bots.contains(id),
            })
    };
    rows.iter()
        .map(|row| {
            let rules = row.rules.0;
            let start = start_of(row);
            Ok(ChallengeView {
                id: row.id.to_string(),
                challenger: player(&row.challenger_id).ok_or_else(|| {
                    ApiError::Internal(format!("challenge {}: no challenger", row.id))
                })?,
                opponent: row.opponent_id.as_ref().and_then(player),
                rules: row.rules,
                variant: variant_name(rules, &start).to_owned(),
                start,
                days_per_move: row.days_per_move,
                clock: clock_of(row)?,
                color: row.color,
                rated: row.rated,
                rating_range: RatingRange::of(row.rating_min, row.rating_max),
                status: row.status,
                game_id: row.game_id.clone().map(String::from),
                created_at: Timestamp(row.created_at),
            })
        })
        .collect()
}

/// How many open challenges to anyone a list shows, the newest first.
pub const OPEN_LISTED: i64 = 50;

/// The account's challenges: to it, by it, and the newest open to anyone.
pub fn list(conn: &mut DbConnection, me: &AccountId) -> Result<ChallengeList, ApiError> {
    let incoming = challenge::incoming(conn, me, None, OPEN_LISTED)?;
    let outgoing = challenge::outgoing(conn, me)?;
    let open = challenge::seeks(conn, me, &SeekFilter::default(), None, OPEN_LISTED)?;
    Ok(ChallengeList {
        incoming: views(conn, incoming)?,
        outgoing: views(conn, outgoing)?,
        open: views(conn, open)?,
    })
}

/// One challenge as `reader` may see it: a challenge to anyone is seen by
/// every account, one addressed to a player only by its two sides (to
/// anyone else, as when there is none, `404`).
pub fn view(
    conn: &mut DbConnection,
    reader: &AccountId,
    id: &ChallengeId,
) -> Result<ChallengeView, ApiError> {
    let row = find(conn, id)?;
    let sides = [Some(&row.challenger_id), row.opponent_id.as_ref()];
    if row.opponent_id.is_some() && !sides.contains(&Some(reader)) {
        return Err(ApiError::NotFound(format!("challenge {id}")));
    }
    views(conn, vec![row])?
        .pop()
        .ok_or_else(|| ApiError::NotFound(format!("challenge {id}")))
}
