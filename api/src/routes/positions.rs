//! `/api/v1/positions/analyze`: the rules engine, for clients and study.

use actix_web::{post, web};
use kingpost_core::{Position, Rules};

use crate::{
    error::{ApiError, Code, Problem},
    views::{AnalysisView, AnalyzeRequest, GameResult, LegalMoveView, OutcomeView, Side},
};

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
            ApiError::invalid(Code::UnknownRules, e.to_string())
        })?;
    let pos = Position::from_fen(rules, &body.fen)
        .map_err(|e| ApiError::invalid(Code::InvalidFen, e.to_string()))?;
    Ok(web::Json(AnalysisView {
        fen: pos.fen(),
        turn: Side::from(pos.turn()),
        check: pos.is_check(),
        legal_moves: LegalMoveView::all(&pos),
        outcome: pos.outcome().map(|o| OutcomeView {
            result: GameResult::of(o.winner()),
            termination: o.into(),
        }),
    }))
}
