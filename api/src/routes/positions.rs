//! `/api/v1/positions/analyze`: the rules engine, for clients and study.

use actix_web::{post, web};
use kingpost_core::{Position, Rules};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{
    error::{ApiError, Problem},
    views::{LegalMoveView, Side},
};

/// A position to analyse.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// A rule set key.
    pub rules: String,
    /// An extended FEN of that rule set.
    pub fen: String,
}

/// How a position ends the game, if it does.
#[derive(Debug, Serialize, ToSchema)]
pub struct OutcomeView {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// `checkmate`, `stalemate`, `goal_rank`, `insufficient_material`, `seventy_five_moves`.
    pub termination: String,
}

/// What the rules say of a position.
#[derive(Debug, Serialize, ToSchema)]
pub struct AnalysisView {
    /// The position's FEN as kingpost writes it.
    pub fen: String,
    pub turn: Side,
    pub check: bool,
    pub legal_moves: Vec<LegalMoveView>,
    /// Set when the position itself ends the game (repetitions need a game's history).
    pub outcome: Option<OutcomeView>,
}

/// Analyse a position: its legal moves, check and outcome.
#[utoipa::path(
    tag = "positions",
    request_body = AnalyzeRequest,
    responses(
        (status = 200, description = "The analysis", body = AnalysisView),
        (status = 422, description = "Unknown rule set (`unknown_rules`) or a FEN that does not parse or is impossible (`invalid_fen`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/positions/analyze")]
pub async fn analyze_position(
    body: web::Json<AnalyzeRequest>,
) -> Result<web::Json<AnalysisView>, ApiError> {
    let rules: Rules = body
        .rules
        .parse()
        .map_err(|e: kingpost_core::UnknownRules| {
            ApiError::invalid("unknown_rules", e.to_string())
        })?;
    let pos = Position::from_fen(rules, &body.fen)
        .map_err(|e| ApiError::invalid("invalid_fen", e.to_string()))?;
    Ok(web::Json(AnalysisView {
        fen: pos.fen(),
        turn: Side::from(pos.turn()),
        check: pos.is_check(),
        legal_moves: LegalMoveView::all(&pos),
        outcome: pos.outcome().map(|o| OutcomeView {
            result: o.result().to_owned(),
            termination: o.reason().to_owned(),
        }),
    }))
}
