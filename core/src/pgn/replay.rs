//! Replaying a game read from PGN under the rules: the rule set from the
//! `Variant` tag, the start from `StartPosition` or `FEN`, every move
//! checked, and an error that names the ply, the move and why.

use crate::{FenError, Position, Rules, Start, StartKind, pgn::RawGame};

/// Why a game of a PGN file cannot be imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("unknown variant `{0}`")]
    UnknownVariant(String),
    #[error("bad FEN tag: {0}")]
    InvalidFen(#[from] FenError),
    #[error("bad StartPosition tag `{0}`")]
    InvalidStart(String),
    #[error("ply {ply}, `{text}`: {reason}")]
    IllegalMove {
        ply: usize,
        text: String,
        reason: String,
    },
}

/// A move of a replayed game, in canonical notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedMove {
    pub uci: String,
    pub san: String,
    pub timestamp: Option<String>,
    /// The repetition key of the position after the move.
    pub position_key: u64,
}

/// A game replayed under its rules.
#[derive(Clone, Debug)]
pub struct ReplayedGame {
    pub rules: Rules,
    pub start: Start,
    pub initial: Position,
    pub moves: Vec<ReplayedMove>,
    pub position: Position,
    /// The result the game states (`Result` tag or termination marker),
    /// or the rules' verdict on its last position, or `*`.
    pub result: String,
}

/// The rule set a `Variant` tag names, and whether it names a Chess960
/// start. Accepts RULES.md's names and common aliases, in any case.
pub fn rules_for_variant(variant: Option<&str>) -> Result<(Rules, bool), ImportError> {
    let Some(name) = variant else {
        return Ok((Rules::Standard, false));
    };
    let key = name.trim().to_ascii_lowercase();
    for rules in Rules::ALL {
        for chess960 in [false, true] {
            if rules.pgn_name(chess960).eq_ignore_ascii_case(&key) {
                return Ok((rules, chess960));
            }
        }
    }
    match key.as_str() {
        "" | "chess" | "normal" | "from position" | "fromposition" => Ok((Rules::Standard, false)),
        "chess 960"
        | "960"
        | "fischerandom"
        | "fischer random"
        | "fischer random chess"
        | "chess960" => Ok((Rules::Standard, true)),
        "bunker leap" | "king to bunker leap" => Ok((Rules::BunkerLeap, false)),
        _ => Err(ImportError::UnknownVariant(name.to_owned())),
    }
}

fn start_of(raw: &RawGame, rules: Rules) -> Result<Start, ImportError> {
    let fen = raw.tag("FEN").map(str::trim).filter(|fen| !fen.is_empty());
    if let Some(text) = raw.tag("StartPosition") {
        let start: Start = text
            .parse()
            .map_err(|_| ImportError::InvalidStart(text.to_owned()))?;
        // The tag names the array; a FEN tag, if any, must be its position.
        if let Some(fen) = fen {
            let named = Position::from_start(rules, &start)
                .map_err(|_| ImportError::InvalidStart(text.to_owned()))?;
            if Position::from_fen(rules, fen)?.fen() != named.fen() {
                return Err(ImportError::InvalidStart(format!(
                    "{text} (the FEN tag says otherwise)"
                )));
            }
        }
        return Ok(start);
    }
    Ok(match fen {
        Some(fen) => Start::Fen(fen.to_owned()),
        None => Start::Standard,
    })
}

/// Replays `raw`: every move must be legal under its rules.
pub fn replay(raw: &RawGame) -> Result<ReplayedGame, ImportError> {
    let (rules, _) = rules_for_variant(raw.tag("Variant"))?;
    let start = start_of(raw, rules)?;
    if !rules.starts().contains(&start.kind()) && start.kind() != StartKind::Fen {
        return Err(ImportError::InvalidStart(format!(
            "{rules} is not played from this start"
        )));
    }
    let initial = Position::from_start(rules, &start).map_err(|e| match e {
        crate::StartError::Fen(fen) => ImportError::InvalidFen(fen),
        other => ImportError::InvalidStart(other.to_string()),
    })?;
    let mut position = initial.clone();
    let mut moves = Vec::with_capacity(raw.moves.len());
    for (i, token) in raw.moves.iter().enumerate() {
        let illegal = |reason: String| ImportError::IllegalMove {
            ply: i + 1,
            text: token.text.clone(),
            reason,
        };
        let legal = position.legal_moves();
        if let Some(outcome) = position.outcome_among(&legal) {
            return Err(illegal(format!("the game is already over ({outcome})")));
        }
        // pgn-reader's reading where it has one, kingpost's own otherwise.
        let parsed = match &token.san {
            Some(san) => position.resolve_san(&token.text, &san.san, &legal),
            None => position.parse_move_among(&token.text, &legal),
        };
        let m = parsed.map_err(|e| illegal(e.to_string()))?;
        let (uci, san) = (position.uci(&m), position.san_among(&m, &legal));
        position.play_unchecked(m);
        moves.push(super::ReplayedMove {
            uci,
            san,
            timestamp: token.timestamp.clone(),
            position_key: position.repetition_key(),
        });
    }
    let stated = raw
        .tag("Result")
        .or(raw.result.as_deref())
        .filter(|r| *r != "*");
    let result = stated
        .map(str::to_owned)
        .or_else(|| position.outcome().map(|o| o.result().to_owned()))
        .unwrap_or_else(|| "*".to_owned());
    Ok(ReplayedGame {
        rules,
        start,
        initial,
        moves,
        position,
        result,
    })
}
