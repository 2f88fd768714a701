//! kingpost's games, challenges and accounts as lichess's Board API shows
//! them, and lichess's challenge requests as kingpost's. Only games lichess
//! clients can play are shown: chess by the FIDE laws from the usual array,
//! a Chess960 array or a FEN. Every other game is kingpost's own, played
//! through `/api/v1`.

use kingpost_core::Rules;

use crate::{
    clock::Millis,
    db::DbConnection,
    domain::{cursor, game::listing, profiles, ratings},
    error::{ApiError, Code},
    models::{account, game::Listing, rating},
    stored::AccountId,
    views::{
        ChallengeStatus, ChallengeView, ClockSpec, ColorChoice, CreateChallengeRequest,
        DAYS_PER_MOVE, GameResult, GameSummary, GameView, RatedStart, RatingView, RuleKey, Side,
        StartSpec, Termination,
        lichess::{
            Account, Challenge, ChallengePerf, ChallengeRequest, ChallengeUser, Compat,
            DeclinedChallenge, GameFull, GameInfo, GamePerf, GamePlayer, GameState, GameStatus,
            Opponent, Perf, Perfs, TimeControl, Variant,
        },
    },
};

/// Every kingpost game is a correspondence game.
const SPEED: &str = "correspondence";
const MILLIS_PER_DAY: i64 = 86_400_000;

/// lichess's variant of a game of `rules` from `start`; `None` for a game
/// lichess clients cannot play.
pub fn variant(rules: Rules, start: &StartSpec) -> Option<Variant> {
    if rules != Rules::Standard {
        return None;
    }
    let (key, name, short) = match start {
        StartSpec::Standard {} => ("standard", "Standard", "Std"),
        StartSpec::Chess960 { .. } => ("chess960", "Chess960", "960"),
        StartSpec::Fen { .. } => ("fromPosition", "From Position", "FEN"),
        StartSpec::Shuffle { .. } | StartSpec::Prechess {} => return None,
    };
    Some(Variant { key, name, short })
}

/// The refusal of a game lichess clients cannot play.
pub fn not_playable_here(rules: Rules, variant_name: &str) -> ApiError {
    ApiError::invalid(
        Code::UnknownRules,
        format!(
            "this game is {variant_name} ({}), which clients of lichess's API know no rules \
             for: play it through kingpost's own API under /api/v1",
            rules.key()
        ),
    )
}

/// `view`'s variant, or the refusal of a game lichess clients cannot play.
pub fn playable(view: &GameView) -> Result<Variant, ApiError> {
    let state = &view.state;
    variant(state.rules.0, &state.start)
        .ok_or_else(|| not_playable_here(state.rules.0, &state.variant))
}

/// The rating pool of a start lichess names: `correspondence` (the usual
/// array) or `chess960`; games from a FEN have none.
fn pool(start: &StartSpec) -> Option<(RatedStart, &'static str)> {
    match start {
        StartSpec::Standard {} => Some((RatedStart::Standard, "correspondence")),
        StartSpec::Chess960 { .. } => Some((RatedStart::Chess960, "chess960")),
        _ => None,
    }
}

/// lichess's `perf` name of a game from `start`.
fn perf_name(start: &StartSpec) -> &'static str {
    match start {
        StartSpec::Chess960 { .. } => "Chess960",
        _ => "Correspondence",
    }
}

/// lichess's id of a user: the username in lower case.
/// lichess's title of the account `username`: `BOT` for a BOT.
fn title_of(conn: &mut DbConnection, username: &str) -> Result<Option<&'static str>, ApiError> {
    let bot = account::find_by_username(conn, username)?.is_some_and(|a| a.bot);
    Ok(bot.then_some("BOT"))
}

pub fn user_id(username: &str) -> String {
    username.to_lowercase()
}

fn perf(view: &RatingView) -> Perf {
    Perf {
        games: view.games,
        rating: view.rating,
        rd: view.deviation,
        prog: 0,
        prov: view.provisional,
    }
}

/// `username`'s rating in the pool of `start` now: Glicko-2's start of
/// 1500, provisional, without one (and for a FEN start).
fn rating_now(
    conn: &mut DbConnection,
    username: &str,
    start: &StartSpec,
    now: Millis,
) -> Result<(i32, bool), ApiError> {
    let fresh = (1500, true);
    let Some((rated_start, _)) = pool(start) else {
        return Ok(fresh);
    };
    let Some(found) = account::find_by_username(conn, username)? else {
        return Ok(fresh);
    };
    let row = rating::find(conn, &found.id, RuleKey(Rules::Standard), rated_start)?;
    Ok(row.map_or(fresh, |row| {
        let view = ratings::view(&row, now);
        (view.rating, view.provisional)
    }))
}

/// Both players' ratings in `view`: as the game began when it is rated,
/// else their ratings now.
fn side_ratings(
    conn: &mut DbConnection,
    view: &GameView,
    now: Millis,
) -> Result<[(i32, bool); 2], ApiError> {
    if let Some(r) = &view.ratings {
        return Ok([
            (r.white.rating, r.white.provisional),
            (r.black.rating, r.black.provisional),
        ]);
    }
    let start = &view.state.start;
    Ok([
        rating_now(conn, &view.state.white.username, start, now)?,
        rating_now(conn, &view.state.black.username, start, now)?,
    ])
}

/// lichess's status of a game: its number and name.
fn status(view: &GameView) -> GameStatus {
    let (id, name) = match view.state.termination {
        None => (20, "started"),
        Some(Termination::Aborted) => (25, "aborted"),
        Some(Termination::Checkmate) => (30, "mate"),
        Some(Termination::Resignation) => (31, "resign"),
        Some(Termination::Stalemate) => (32, "stalemate"),
        Some(Termination::Timeout) => (35, "outoftime"),
        // lichess's forfeit: a player who left the game.
        Some(Termination::Forfeit) => (33, "timeout"),
        Some(Termination::GoalRank) => (60, "variantEnd"),
        Some(
            Termination::InsufficientMaterial
            | Termination::FivefoldRepetition
            | Termination::SeventyFiveMoves
            | Termination::ThreefoldRepetition
            | Termination::FiftyMoves
            | Termination::Agreement
            | Termination::Adjudication,
        ) => (34, "draw"),
    };
    GameStatus { id, name }
}

fn winner(view: &GameView) -> Option<&'static str> {
    match view.state.result {
        Some(GameResult::WhiteWon) => Some("white"),
        Some(GameResult::BlackWon) => Some("black"),
        _ => None,
    }
}

/// Milliseconds each side has: the clock's time left where there is a
/// clock, else the time to the deadline for the side to move and a whole
/// move's days for the other.
fn times(view: &GameView) -> (i64, i64) {
    let state = &view.state;
    let whole = i64::from(state.days_per_move) * MILLIS_PER_DAY;
    let to_move = state.time_left_seconds.map_or(whole, |s| s.max(0) * 1000);
    if let Some(clock) = &state.clock {
        let left = |seconds: Option<i64>| seconds.map_or(to_move, |s| s.max(0) * 1000);
        return (left(clock.white_seconds), left(clock.black_seconds));
    }
    match state.turn {
        Side::White => (to_move, whole),
        Side::Black => (whole, to_move),
    }
}

/// The days added after each move: a bank's increment, in milliseconds.
fn increment(view: &GameView) -> i64 {
    match view.state.clock.as_ref().map(|clock| clock.spec) {
        Some(ClockSpec::Bank { increment_days, .. }) => i64::from(increment_days) * MILLIS_PER_DAY,
        Some(ClockSpec::Control { .. }) | None => 0,
    }
}

/// lichess's days per turn: the days per move, or under a clock that
/// carries time over the days it starts with (a bank's first days, a
/// control's days for its moves), which lichess has no word for.
fn days_per_turn(clock: Option<&ClockSpec>, days_per_move: i32) -> i32 {
    match clock {
        Some(ClockSpec::Bank { initial_days, .. }) => *initial_days,
        Some(ClockSpec::Control { days, .. }) => *days,
        None => days_per_move,
    }
}

/// `GameStateEvent` of `view`.
pub fn game_state(view: &GameView) -> GameState {
    let (wtime, btime) = times(view);
    let inc = increment(view);
    let moves: Vec<&str> = view.moves.iter().map(|m| m.uci.as_str()).collect();
    GameState {
        kind: "gameState",
        moves: moves.join(" "),
        wtime,
        btime,
        winc: inc,
        binc: inc,
        status: status(view).name,
        winner: winner(view),
        wdraw: view.state.draw_offer == Some(Side::White),
        bdraw: view.state.draw_offer == Some(Side::Black),
    }
}

/// `GameFullEvent` of `view`, a game lichess clients can play.
pub fn game_full(
    conn: &mut DbConnection,
    view: &GameView,
    now: Millis,
) -> Result<GameFull, ApiError> {
    let variant = playable(view)?;
    let [(white_rating, white_prov), (black_rating, black_prov)] = side_ratings(conn, view, now)?;
    let state = &view.state;
    let mut player = |username: &str, rating: i32, provisional: bool| {
        Ok::<_, ApiError>(GamePlayer {
            id: user_id(username),
            name: username.to_owned(),
            title: title_of(conn, username)?,
            rating,
            provisional,
        })
    };
    let white = player(&state.white.username, white_rating, white_prov)?;
    let black = player(&state.black.username, black_rating, black_prov)?;
    Ok(GameFull {
        kind: "gameFull",
        id: state.id.clone(),
        variant,
        speed: SPEED,
        perf: GamePerf {
            name: perf_name(&state.start),
        },
        rated: state.rated,
        created_at: state.created_at.0,
        white,
        black,
        initial_fen: match state.start {
            StartSpec::Standard {} => "startpos".to_owned(),
            _ => state.initial_fen.clone(),
        },
        state: game_state(view),
        days_per_turn: days_per_turn(
            state.clock.as_ref().map(|clock| &clock.spec),
            state.days_per_move,
        ),
        tournament_id: None,
    })
}

/// `GameEventInfo` of `view` for `me`, one of its players; `None` for a
/// game lichess clients cannot play.
pub fn game_info(
    conn: &mut DbConnection,
    view: &GameView,
    me: &str,
    now: Millis,
) -> Result<Option<GameInfo>, ApiError> {
    let Ok(variant) = playable(view) else {
        return Ok(None);
    };
    let state = &view.state;
    let ratings = side_ratings(conn, view, now)?;
    let white = state.white.username.eq_ignore_ascii_case(me);
    let (mine, theirs, opponent) = if white {
        (Side::White, 1, &state.black.username)
    } else {
        (Side::Black, 0, &state.white.username)
    };
    let changes = view
        .ratings
        .as_ref()
        .map(|r| (r.white.change, r.black.change));
    let (my_change, their_change) = match changes {
        Some((w, b)) if white => (w, b),
        Some((w, b)) => (b, w),
        None => (None, None),
    };
    let (wtime, btime) = times(view);
    let under_way = state.termination.is_none();
    Ok(Some(GameInfo {
        full_id: state.id.clone(),
        game_id: state.id.clone(),
        fen: state.fen.split(' ').next().unwrap_or_default().to_owned(),
        color: if white { "white" } else { "black" },
        last_move: view.moves.last().map(|m| m.uci.clone()).unwrap_or_default(),
        source: "friend",
        status: status(view),
        variant,
        speed: SPEED,
        perf: pool(&state.start).map_or("correspondence", |(_, name)| name),
        rated: state.rated,
        has_moved: view.moves.len() > usize::from(mine == Side::Black),
        opponent: Opponent {
            id: user_id(opponent),
            username: opponent.clone(),
            rating: ratings[theirs].0,
            rating_diff: their_change,
        },
        is_my_turn: under_way && state.turn == mine,
        seconds_left: under_way.then_some(
            match mine {
                Side::White => wtime,
                Side::Black => btime,
            } / 1000,
        ),
        winner: winner(view),
        rating_diff: my_change,
        compat: Compat {
            bot: true,
            board: true,
        },
        id: state.id.clone(),
    }))
}

/// The games `account` plays that are under way and lichess clients can
/// play, soonest deadline first.
pub fn under_way(
    conn: &mut DbConnection,
    account: &AccountId,
) -> Result<Vec<GameSummary>, ApiError> {
    let mut games = Vec::new();
    let mut after = None;
    loop {
        let page = listing::list(conn, account, Listing::Ongoing, after, listing::MAX_PAGE)?;
        games.extend(
            page.games
                .into_iter()
                .filter(|g| variant(g.rules.0, &g.start).is_some()),
        );
        match page.next_cursor {
            Some(cursor) => after = Some(cursor::decode(&cursor)?),
            None => return Ok(games),
        }
    }
}

/// `ChallengeJson` of `view` for `me`, linked under `base`; `None` for a
/// challenge to a game lichess clients cannot play.
pub fn challenge(
    conn: &mut DbConnection,
    view: &ChallengeView,
    me: &str,
    base: &str,
    now: Millis,
) -> Result<Option<Challenge>, ApiError> {
    let Some(variant) = variant(view.rules.0, &view.start) else {
        return Ok(None);
    };
    let mut user = |username: &str| -> Result<ChallengeUser, ApiError> {
        let (rating, provisional) = rating_now(conn, username, &view.start, now)?;
        Ok(ChallengeUser {
            id: user_id(username),
            name: username.to_owned(),
            title: title_of(conn, username)?,
            rating,
            provisional,
        })
    };
    let challenger = user(&view.challenger.username)?;
    let dest_user = view
        .opponent
        .as_ref()
        .map(|o| user(&o.username))
        .transpose()?;
    Ok(Some(Challenge {
        id: view.id.clone(),
        url: format!("{base}/#/"),
        status: match view.status {
            ChallengeStatus::Open => "created",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Cancelled => "canceled",
        },
        challenger,
        dest_user,
        variant,
        rated: view.rated,
        speed: SPEED,
        time_control: TimeControl {
            days_per_turn: days_per_turn(view.clock.as_ref(), view.days_per_move),
        },
        color: match view.color {
            ColorChoice::White => "white",
            ColorChoice::Black => "black",
            ColorChoice::Random => "random",
        },
        perf: ChallengePerf {
            icon: "",
            name: perf_name(&view.start),
        },
        direction: if view.challenger.username.eq_ignore_ascii_case(me) {
            "out"
        } else {
            "in"
        },
        initial_fen: match &view.start {
            StartSpec::Fen { fen } => Some(fen.clone()),
            _ => None,
        },
    }))
}

/// A declined challenge as lichess tells its challenger: kingpost asks no
/// reason of the decliner.
pub fn declined(challenge: Challenge) -> DeclinedChallenge {
    DeclinedChallenge {
        challenge,
        decline_reason: "The challenge was declined.".to_owned(),
        decline_reason_key: "generic".to_owned(),
    }
}

/// `UserExtended` of the account `username`, linked under `base`.
pub fn account(
    conn: &mut DbConnection,
    username: &str,
    base: &str,
    now: Millis,
) -> Result<Account, ApiError> {
    let profile = profiles::profile(conn, username, now)?;
    let mut perfs = Perfs::default();
    for rating in profile
        .ratings
        .iter()
        .filter(|r| r.rules.0 == Rules::Standard)
    {
        match rating.start {
            RatedStart::Standard => perfs.correspondence = Some(perf(rating)),
            RatedStart::Chess960 => perfs.chess960 = Some(perf(rating)),
            RatedStart::Shuffle | RatedStart::Prechess => {}
        }
    }
    Ok(Account {
        id: user_id(&profile.username),
        title: profile.bot.then_some("BOT"),
        // Usernames are letters, digits, `_` and `-`: nothing to escape.
        url: format!("{base}/#/users/{}", profile.username),
        created_at: profile.created_at.0,
        seen_at: profile.last_active_at.map(|at| at.0),
        username: profile.username,
        perfs,
    })
}

/// kingpost's challenge for lichess's request to challenge `opponent`:
/// correspondence only, of the variants lichess clients can play.
pub fn challenge_request(
    request: ChallengeRequest,
    opponent: &str,
) -> Result<CreateChallengeRequest, ApiError> {
    let invalid = |detail: String| ApiError::invalid(Code::InvalidBody, detail);
    if request.clock_limit.is_some() || request.clock_increment.is_some() {
        return Err(invalid(
            "kingpost plays correspondence games only: send `days` instead of a clock".to_owned(),
        ));
    }
    let days = request.days.ok_or_else(|| {
        invalid("`days` is required: kingpost plays correspondence games only".to_owned())
    })?;
    if !DAYS_PER_MOVE.contains(&days) {
        return Err(invalid(format!("`days` is one of {DAYS_PER_MOVE:?}")));
    }
    let start = match (request.variant.as_deref(), request.fen) {
        (None | Some("standard"), None) => StartSpec::Standard {},
        (Some("chess960"), None) => StartSpec::Chess960 { id: None },
        (None | Some("standard" | "fromPosition"), Some(fen)) => StartSpec::Fen { fen },
        (Some(other), _) => {
            return Err(invalid(format!(
                "variant `{other}`: kingpost's lichess-compatible API plays `standard`, \
                 `chess960` and `fromPosition`; its own variants are played under /api/v1"
            )));
        }
    };
    let color = match request.color.as_deref() {
        None | Some("random") => ColorChoice::Random,
        Some("white") => ColorChoice::White,
        Some("black") => ColorChoice::Black,
        Some(other) => {
            return Err(invalid(format!(
                "color `{other}` is `white`, `black` or `random`"
            )));
        }
    };
    Ok(CreateChallengeRequest {
        rules: Rules::Standard.key().to_owned(),
        start,
        days_per_move: Some(days),
        clock: None,
        color,
        opponent: Some(opponent.to_owned()),
        rated: request.rated.unwrap_or(false),
        rating_range: None,
    })
}
