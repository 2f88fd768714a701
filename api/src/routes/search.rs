//! `/api/v1/search`: the study archive searched.

use actix_web::{HttpResponse, get, web};
use kingpost_core::Rules;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::MaybeAuth,
    domain::{
        cursor,
        search::{self, Scope, Target},
    },
    error::{ApiError, Code, Problem},
    middleware::limits::ExpensiveTurn,
    models::{game::StartKind, search::GameFilter},
    routes::Query,
    state::AppState,
    stored::GameId,
    streams::streamed_pgn,
    views::{ExplorerView, GameResult, GameSearch, PgnText, PositionSearch, RuleKey, Termination},
};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PositionSearchQuery {
    /// The rule set.
    pub rules: RuleKey,
    /// The position, as an extended FEN of the rule set.
    pub fen: Option<String>,
    /// Or the position after these moves (UCI or SAN, separated by spaces)
    /// from the rule set's usual start.
    pub moves: Option<String>,
    /// Only the caller's own played games and collections.
    #[serde(default)]
    pub own: bool,
    /// Only this collection's games.
    pub collection: Option<String>,
    /// Games per page, 1 to 100 (default 20); the `.pgn` file holds every
    /// game found and reads them this many at a time.
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page; the `.pgn` file begins after it.
    pub cursor: Option<String>,
}

/// The games that reached a position, found through an index of every
/// position of every game (the engine's repetition key: placement, side to
/// move, castling and en-passant rights), each with the first ply it stood
/// there: among played games, public collections and the caller's own
/// collections (private ones of others are never searched).
#[utoipa::path(
    tag = "search",
    params(PositionSearchQuery),
    responses(
        (status = 200, description = "A page of games, by id", body = PositionSearch),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad rule set, FEN, move, limit or cursor", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/search/positions")]
pub async fn search_positions(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    query: Query<PositionSearchQuery>,
    _turn: ExpensiveTurn,
) -> Result<web::Json<PositionSearch>, ApiError> {
    let search = PositionSearchQuery::parse(query.into_inner())?;
    let reader = auth.reader().cloned();
    let page = state
        .read_lagging(move |conn| {
            search::positions(
                conn,
                reader.as_ref(),
                search.rules,
                &search.target,
                search.scope.clone(),
                search.after.as_ref(),
                search.limit,
            )
        })
        .await?;
    Ok(web::Json(page))
}

/// The games that reached a position, as [`search_positions`] finds them,
/// as one PGN file (every game found, from `cursor` on), streamed.
#[utoipa::path(
    tag = "search",
    params(PositionSearchQuery),
    responses(
        (status = 200, description = "The games, by id", body = PgnText, content_type = "application/x-chess-pgn"),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad rule set, FEN, move, limit or cursor", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/search/positions.pgn")]
pub async fn export_position_search(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    query: Query<PositionSearchQuery>,
    turn: ExpensiveTurn,
) -> Result<HttpResponse, ApiError> {
    let search = PositionSearchQuery::parse(query.into_inner())?;
    let reader = auth.reader().cloned();
    // Checked before the answer begins, so that a bad one is a plain error.
    let (asked, checker) = (search.clone(), reader.clone());
    state
        .read_lagging(move |conn| {
            search::check_position(
                conn,
                checker.as_ref(),
                asked.rules,
                &asked.target,
                asked.scope.clone(),
            )
        })
        .await?;
    let first = search.after.clone();
    Ok(streamed_pgn(
        state,
        turn,
        "positions",
        first,
        move |conn, after| {
            search::positions_pgn(
                conn,
                reader.as_ref(),
                search.rules,
                &search.target,
                search.scope.clone(),
                after.as_ref(),
                search.limit,
            )
        },
    ))
}

/// A position search as its query string asks it.
#[derive(Debug, Clone)]
struct PositionSearchAsked {
    rules: Rules,
    target: Target,
    scope: Scope,
    after: Option<GameId>,
    limit: i64,
}

impl PositionSearchQuery {
    fn parse(self) -> Result<PositionSearchAsked, ApiError> {
        let (rules, target, scope) =
            parse_position(self.rules, self.fen, self.moves, self.own, self.collection)?;
        Ok(PositionSearchAsked {
            rules,
            target,
            scope,
            after: self.cursor.map(GameId::from),
            limit: super::page_limit(self.limit, search::DEFAULT_PAGE, search::MAX_PAGE)?,
        })
    }
}

/// The rule set, position and scope a search names in its query string.
fn parse_position(
    RuleKey(rules): RuleKey,
    fen: Option<String>,
    moves: Option<String>,
    own: bool,
    collection: Option<String>,
) -> Result<(Rules, Target, Scope), ApiError> {
    let target = match (fen, moves) {
        (Some(fen), None) => Target::Fen(fen),
        (None, Some(moves)) => Target::Moves(moves.split_whitespace().map(str::to_owned).collect()),
        _ => {
            return Err(ApiError::invalid(
                Code::InvalidQuery,
                "give the position as `fen` or as `moves`, one of them",
            ));
        }
    };
    Ok((rules, target, parse_scope(own, collection)?))
}

/// The games a search looks among, as its query string names them.
fn parse_scope(own: bool, collection: Option<String>) -> Result<Scope, ApiError> {
    match (own, collection) {
        (false, None) => Ok(Scope::Visible),
        (true, None) => Ok(Scope::Own),
        (false, Some(id)) => Ok(Scope::Collection(id.into())),
        (true, Some(_)) => Err(ApiError::invalid(
            Code::InvalidQuery,
            "`own` and `collection` are two scopes: give one",
        )),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExplorerQuery {
    /// The rule set.
    pub rules: RuleKey,
    /// The position, as an extended FEN of the rule set.
    pub fen: Option<String>,
    /// Or the position after these moves (UCI or SAN, separated by spaces)
    /// from the rule set's usual start.
    pub moves: Option<String>,
    /// Only the caller's own played games and collections.
    #[serde(default)]
    pub own: bool,
    /// Only this collection's games.
    pub collection: Option<String>,
}

/// The opening explorer, for every rule set: the moves played from a
/// position (reached by any move order) in the finished games the caller
/// may see (a played game counts once it ends; imported games whatever
/// their result), how often, and how those games ended, most played first.
#[utoipa::path(
    tag = "search",
    params(ExplorerQuery),
    responses(
        (status = 200, description = "The moves played from the position", body = ExplorerView),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad rule set, FEN or move", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/explorer")]
pub async fn explore_position(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    query: Query<ExplorerQuery>,
    _turn: ExpensiveTurn,
) -> Result<web::Json<ExplorerView>, ApiError> {
    let query = query.into_inner();
    let (rules, target, scope) = parse_position(
        query.rules,
        query.fen,
        query.moves,
        query.own,
        query.collection,
    )?;
    let reader = auth.reader().cloned();
    let view = state
        .read_lagging(move |conn| {
            search::explore(conn, reader.as_ref(), rules, &target, scope.clone())
        })
        .await?;
    Ok(web::Json(view))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct GameSearchQuery {
    /// Only games of this rule set.
    pub rules: Option<RuleKey>,
    /// A player's name (a username, or a name as PGN writes it: `Carlsen`,
    /// `Carlsen, Magnus`, `Carlsen,M`), found however a game spells it: the
    /// same surname, first given names that do not differ (one unknown, or
    /// one the other's initial), case and accents ignored. The answer's
    /// `spellings` says which were found.
    pub player: Option<String>,
    /// With `player`: only games against this opponent.
    pub opponent: Option<String>,
    /// Only games from this kind of start.
    #[param(value_type = Option<String>, example = "chess960")]
    pub start: Option<StartKind>,
    /// Only games with this result: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: Option<GameResult>,
    /// Only games that ended so.
    pub termination: Option<Termination>,
    /// Played on or after this day: `2026-12-01`, `2026-12` or `2026`.
    pub since: Option<String>,
    /// Played before this day, in the same forms.
    pub until: Option<String>,
    /// An ECO code or its first letters: `B90`, `B9`, `B`. The game's own
    /// `ECO` tag when it has one, as written; else the code the opening
    /// tables give its moves.
    pub eco: Option<String>,
    /// Words of the opening's name, in any case and any order: `najdorf
    /// sicilian`. The game's own `Opening` tag when it has one; else the
    /// tables' name.
    pub opening: Option<String>,
    /// As `eco`, the code the opening tables give the game's moves alone.
    pub computed_eco: Option<String>,
    /// As `opening`, the name the opening tables give the game's moves
    /// alone.
    pub computed_opening: Option<String>,
    /// At least this many plies.
    pub min_plies: Option<i32>,
    /// At most this many plies.
    pub max_plies: Option<i32>,
    /// Only the caller's own played games and collections.
    #[serde(default)]
    pub own: bool,
    /// Only this collection's games.
    pub collection: Option<String>,
    /// Games per page, 1 to 100 (default 20); the `.pgn` file holds every
    /// game found and reads them this many at a time.
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page; the `.pgn` file begins after it.
    pub cursor: Option<String>,
}

fn invalid_query(detail: impl Into<String>) -> ApiError {
    ApiError::invalid(Code::InvalidQuery, detail)
}

/// A day of a query, `2026-12-01`, `2026-12` or `2026`, in PGN's form (or
/// its prefix), so that it compares with stored days as text.
fn pgn_day(name: &str, text: &str) -> Result<String, ApiError> {
    let parts: Vec<&str> = text.split('-').collect();
    let digits =
        |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_digit());
    let well_formed = match parts.as_slice() {
        [y] => digits(y, 4),
        [y, m] => digits(y, 4) && digits(m, 2),
        [y, m, d] => digits(y, 4) && digits(m, 2) && digits(d, 2),
        _ => false,
    };
    if !well_formed {
        return Err(invalid_query(format!(
            "`{name}` is a day (2026-12-01), a month (2026-12) or a year (2026)"
        )));
    }
    Ok(parts.join("."))
}

/// The games found by their own data: players, rule set, start, result,
/// how they ended, the day they were played (an imported game's `Date`
/// tag), ECO code or opening name, length; newest first, among played
/// games, public collections and the caller's own collections.
#[utoipa::path(
    tag = "search",
    params(GameSearchQuery),
    responses(
        (status = 200, description = "A page of games, newest first", body = GameSearch),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad filter, limit or cursor", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/search/games")]
pub async fn search_games(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    query: Query<GameSearchQuery>,
    _turn: ExpensiveTurn,
) -> Result<web::Json<GameSearch>, ApiError> {
    let search = query.into_inner().parse()?;
    let reader = auth.reader().cloned();
    let page = state
        .read_lagging(move |conn| {
            search::games(
                conn,
                reader.as_ref(),
                &search.filter,
                search.scope.clone(),
                search.after.clone(),
                search.limit,
            )
        })
        .await?;
    Ok(web::Json(page))
}

/// The games found by their data, as [`search_games`] finds them, as one
/// PGN file (every game found, from `cursor` on), streamed.
#[utoipa::path(
    tag = "search",
    params(GameSearchQuery),
    responses(
        (status = 200, description = "The games, newest first", body = PgnText, content_type = "application/x-chess-pgn"),
        (status = 404, description = "No such collection the caller may see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad filter, limit or cursor", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = ["game:read"]), ())
)]
#[get("/search/games.pgn")]
pub async fn export_game_search(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    query: Query<GameSearchQuery>,
    turn: ExpensiveTurn,
) -> Result<HttpResponse, ApiError> {
    let search = query.into_inner().parse()?;
    let reader = auth.reader().cloned();
    // Checked before the answer begins, so that a bad one is a plain error.
    let (scope, checker) = (search.scope.clone(), reader.clone());
    state
        .read_lagging(move |conn| search::check_scope(conn, checker.as_ref(), scope.clone()))
        .await?;
    let first = search.after.clone();
    Ok(streamed_pgn(
        state,
        turn,
        "games",
        first,
        move |conn, after| {
            search::games_pgn(
                conn,
                reader.as_ref(),
                &search.filter,
                search.scope.clone(),
                after,
                search.limit,
            )
        },
    ))
}

/// A search by data as its query string asks it.
#[derive(Debug, Clone)]
struct GameSearchAsked {
    filter: GameFilter,
    scope: Scope,
    after: Option<(i64, String)>,
    limit: i64,
}

impl GameSearchQuery {
    fn parse(self) -> Result<GameSearchAsked, ApiError> {
        if self.opponent.is_some() && self.player.is_none() {
            return Err(invalid_query("`opponent` needs `player`"));
        }
        for (name, eco) in [("eco", &self.eco), ("computed_eco", &self.computed_eco)] {
            let Some(eco) = eco else { continue };
            let mut chars = eco.chars();
            let volume = chars.next().is_some_and(|c| ('A'..='E').contains(&c));
            if !volume || eco.len() > 3 || !chars.all(|c| c.is_ascii_digit()) {
                return Err(invalid_query(format!(
                    "`{name}` is an ECO code or its start: B90, B9, B"
                )));
            }
        }
        let filter = GameFilter {
            rules: self.rules,
            player: self.player,
            opponent: self.opponent,
            start: self.start,
            result: self.result,
            termination: self.termination,
            since: self
                .since
                .as_deref()
                .map(|t| pgn_day("since", t))
                .transpose()?,
            until: self
                .until
                .as_deref()
                .map(|t| pgn_day("until", t))
                .transpose()?,
            eco: self.eco,
            opening: self.opening,
            computed_eco: self.computed_eco,
            computed_opening: self.computed_opening,
            min_plies: self.min_plies,
            max_plies: self.max_plies,
        };
        Ok(GameSearchAsked {
            filter,
            scope: parse_scope(self.own, self.collection)?,
            after: self.cursor.as_deref().map(cursor::decode).transpose()?,
            limit: super::page_limit(self.limit, search::DEFAULT_PAGE, search::MAX_PAGE)?,
        })
    }
}
