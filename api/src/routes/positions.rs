//! `/api/v1/positions/analyze`: the rules engine, for clients, study and
//! the analysis board.

use actix_web::{post, web};
use kingpost_core::{Position, Rules};

use crate::{
    error::{ApiError, Code, Problem},
    views::{
        AnalysisView, AnalyzeRequest, GameResult, LegalMoveView, LineMoveView, OutcomeView,
        RightsView, Side,
    },
};

/// The longest line an analysis plays: longer than any game's moves a
/// board would hold, short enough that a request costs little.
const MAX_LINE: usize = 600;

/// Analyse a position, or the position after a line of moves from it: its
/// legal moves, check and outcome.
#[utoipa::path(
    tag = "positions",
    request_body = AnalyzeRequest,
    responses(
        (status = 200, description = "The analysis", body = AnalysisView),
        (status = 422, description = "Unknown rule set (`unknown_rules`), a FEN that does not parse or is impossible (`invalid_fen`), a line too long (`invalid_body`), or a move of the line that is not a move (`invalid_move_syntax`) or not legal where it stands (`illegal_move`)", body = Problem, content_type = "application/problem+json"),
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
    let mut pos = Position::from_fen(rules, &body.fen)
        .map_err(|e| ApiError::invalid(Code::InvalidFen, e.to_string()))?;
    if body.moves.len() > MAX_LINE {
        return Err(ApiError::invalid(
            Code::InvalidBody,
            format!("`moves` holds at most {MAX_LINE} moves"),
        ));
    }
    let mut line = Vec::with_capacity(body.moves.len());
    for (index, text) in body.moves.iter().enumerate() {
        let legal = pos.legal_moves();
        let m = pos
            .parse_move_among(text, &legal)
            .map_err(|e| in_line(index, ApiError::from(e)))?;
        line.push(LineMoveView {
            uci: pos.uci(&m),
            san: pos.san_among(&m, &legal),
        });
        pos.play_unchecked(m);
    }
    Ok(web::Json(AnalysisView {
        fen: pos.fen(),
        line,
        turn: Side::from(pos.turn()),
        check: pos.is_check(),
        rights: RightsView::of(&pos),
        legal_moves: LegalMoveView::all(&pos),
        outcome: pos.outcome().map(|o| OutcomeView {
            result: GameResult::of(o.winner()),
            termination: o.into(),
        }),
    }))
}

/// A refused move of the line, its place in the line said first.
fn in_line(index: usize, error: ApiError) -> ApiError {
    let place = format!("move {} of `moves`", index + 1);
    match error {
        ApiError::InvalidMoveSyntax(why) => ApiError::InvalidMoveSyntax(format!("{place}: {why}")),
        ApiError::IllegalMove(why) => ApiError::IllegalMove(format!("{place}: {why}")),
        other => other,
    }
}
