//! `/api/v1/search`: the study archive searched.

use actix_web::{get, web};
use kingpost_core::Rules;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{
    auth::MaybeAuth,
    domain::search::{self, Scope, Target},
    error::{ApiError, Code, Problem},
    state::AppState,
    stored::GameId,
    views::{ExplorerView, PositionSearch, RuleKey},
};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PositionSearchQuery {
    /// The rule set.
    #[param(value_type = RuleKey)]
    pub rules: String,
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
    /// Games per page, 1 to 100 (default 20).
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page.
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
    query: web::Query<PositionSearchQuery>,
) -> Result<web::Json<PositionSearch>, ApiError> {
    let query = query.into_inner();
    let (rules, target, scope) = parse_position(
        &query.rules,
        query.fen,
        query.moves,
        query.own,
        query.collection,
    )?;
    let limit = query.limit.unwrap_or(search::DEFAULT_PAGE);
    if !(1..=search::MAX_PAGE).contains(&limit) {
        return Err(ApiError::invalid(
            Code::InvalidQuery,
            format!("limit is 1 to {}", search::MAX_PAGE),
        ));
    }
    let after = query.cursor.map(GameId::from);
    let reader = auth.reader().cloned();
    let page = state
        .db(move |conn| {
            search::positions(
                conn,
                reader.as_ref(),
                rules,
                &target,
                scope,
                after.as_ref(),
                limit,
            )
        })
        .await?;
    Ok(web::Json(page))
}

/// The rule set, position and scope a search names in its query string.
fn parse_position(
    rules: &str,
    fen: Option<String>,
    moves: Option<String>,
    own: bool,
    collection: Option<String>,
) -> Result<(Rules, Target, Scope), ApiError> {
    let rules: Rules = rules.parse().map_err(|e: kingpost_core::UnknownRules| {
        ApiError::invalid(Code::UnknownRules, e.to_string())
    })?;
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
    let scope = match (own, collection) {
        (false, None) => Scope::Visible,
        (true, None) => Scope::Own,
        (false, Some(id)) => Scope::Collection(id.into()),
        (true, Some(_)) => {
            return Err(ApiError::invalid(
                Code::InvalidQuery,
                "`own` and `collection` are two scopes: give one",
            ));
        }
    };
    Ok((rules, target, scope))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExplorerQuery {
    /// The rule set.
    #[param(value_type = RuleKey)]
    pub rules: String,
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
/// position (reached by any move order) in the games the caller may see,
/// how often, and how those games ended, most played first.
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
    query: web::Query<ExplorerQuery>,
) -> Result<web::Json<ExplorerView>, ApiError> {
    let query = query.into_inner();
    let (rules, target, scope) = parse_position(
        &query.rules,
        query.fen,
        query.moves,
        query.own,
        query.collection,
    )?;
    let reader = auth.reader().cloned();
    let view = state
        .db(move |conn| search::explore(conn, reader.as_ref(), rules, &target, scope))
        .await?;
    Ok(web::Json(view))
}
