//! Replaying a game read from PGN under the rules: the rule set from the
//! `Variant` tag, the start from `StartPosition` or `FEN`, every move
//! checked, and an error that names the ply, the move and why. An imported
//! game is history (docs/spec/rules.md §2.5): it keeps every legal move and
//! its recorded result, and the replay says where today's automatic draws
//! would have ended it. Only where nothing is legal (checkmate, stalemate, a
//! rule set's own win) does it end, the moves written after that dropped.

use std::fmt;

use shakmaty::san::San;

use crate::{
    FenError, Game, Move, MoveList, Outcome, Position, Rules, Start, StartKind, Wanted,
    pgn::{
        LineMove, MAX_VARIATION_DEPTH, MoveToken, Notes, RawGame,
        tokens::{NULL_MOVES, result_of},
    },
};

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

/// A game kept up to a ply before its last written move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shortened {
    /// The plies kept.
    pub plies: usize,
    /// The moves written after them, dropped.
    pub dropped: usize,
    /// Why the game stops there.
    pub cut: Cut,
}

/// Why an imported game stops before its last written move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Nothing is legal after the plies kept: how the position ended the
    /// game (checkmate, stalemate, a rule set's own win).
    Ended(Outcome),
    /// A null move (`--`) follows them: no rule set lets a side pass, so
    /// the game is kept up to it.
    NullMove,
}

impl Cut {
    /// A stable snake_case name: the outcome's reason, or `null_move`.
    pub fn reason(&self) -> &'static str {
        match self {
            Cut::Ended(outcome) => outcome.reason(),
            Cut::NullMove => "null_move",
        }
    }
}

impl fmt::Display for Shortened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.dropped == 1 { "" } else { "s" };
        match self.cut {
            Cut::Ended(outcome) => write!(
                f,
                "the position ended the game after ply {} ({outcome}): {} move{s} after it dropped",
                self.plies, self.dropped
            ),
            Cut::NullMove => write!(
                f,
                "a null move after ply {}: the game is kept up to it, {} move{s} from it dropped",
                self.plies, self.dropped
            ),
        }
    }
}

/// Something a replay read otherwise than written, said in the report.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportWarning {
    #[error("the game is not UTF-8: read as Windows-1252")]
    Windows1252,
    #[error("the Result tag `{0}` is not a result: ignored")]
    NotAResult(String),
    #[error("the game states {stated}, but the rules ended it {outcome}")]
    ResultOverruled { stated: String, outcome: Outcome },
    #[error("a variation's move `{text}` at ply {ply}: {reason}; the variation is cut there")]
    VariationCut {
        ply: usize,
        text: String,
        reason: String,
    },
    #[error(
        "{0} variation(s) left out: nested deeper than {MAX_VARIATION_DEPTH}, or with no move to replace"
    )]
    VariationsLeftOut(usize),
    #[error(
        "today's rules would have ended the game after ply {ply} ({outcome}); every move played is kept"
    )]
    RulesWouldHaveEnded { ply: usize, outcome: Outcome },
}

/// A move of a replayed game, in canonical notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedMove {
    pub played: Move,
    pub uci: String,
    pub san: String,
    pub timestamp: Option<String>,
    /// The repetition key of the position after the move.
    pub position_key: u64,
    /// Its comments and NAGs, and the variations that replace it, checked.
    pub notes: Notes<LineMove>,
}

/// A game replayed under its rules.
#[derive(Clone, Debug)]
pub struct ReplayedGame {
    pub rules: Rules,
    /// Whether the `Variant` tag names a Chess960 game.
    pub chess960: bool,
    pub start: Start,
    pub initial: Position,
    /// The comment before the first move.
    pub comment: Option<String>,
    pub moves: Vec<ReplayedMove>,
    pub position: Position,
    /// How the position ended the game, if nothing was legal after it
    /// (checkmate, stalemate, a rule set's own win).
    pub outcome: Option<Outcome>,
    /// The position's result when it ended the game, else the result the
    /// game states (`Result` tag or termination marker), else `*`.
    pub result: String,
    /// Moves after the position's end, dropped.
    pub shortened: Option<Shortened>,
    /// Where today's automatic draws (fivefold repetition, seventy-five
    /// moves, a dead position) would first have ended the game: after how
    /// many plies, and how. The game goes on as played.
    pub rules_would_have_ended: Option<(usize, Outcome)>,
    pub warnings: Vec<ImportWarning>,
}

/// The rule set a `Variant` tag names, and whether it names a Chess960
/// start. Accepts the names of docs/spec/rules.md §1.1 and common aliases, in any case.
pub fn rules_for_variant(variant: Option<&str>) -> Result<(Rules, bool), ImportError> {
    let Some(name) = variant else {
        return Ok((Rules::Standard, false));
    };
    let key = name.trim().to_ascii_lowercase();
    if key.is_empty() {
        return Ok((Rules::Standard, false));
    }
    for rules in Rules::ALL {
        for chess960 in [false, true] {
            if rules.pgn_name(chess960).eq_ignore_ascii_case(&key) {
                return Ok((rules, chess960));
            }
        }
        if let Some((_, chess960)) = rules.pgn_aliases().find(|(alias, _)| *alias == key) {
            return Ok((rules, chess960));
        }
    }
    Err(ImportError::UnknownVariant(name.to_owned()))
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

/// Replays `raw`: every move must be legal under its rules, up to the end
/// the rules give the game.
pub fn replay(raw: &RawGame) -> Result<ReplayedGame, ImportError> {
    let (rules, chess960) = rules_for_variant(raw.tag("Variant"))?;
    let mut start = start_of(raw, rules)?;
    if !rules.starts().contains(&start.kind()) && start.kind() != StartKind::Fen {
        return Err(ImportError::InvalidStart(format!(
            "{rules} is not played from this start"
        )));
    }
    let initial = Position::from_start(rules, &start).map_err(|e| match e {
        crate::StartError::Fen(fen) => ImportError::InvalidFen(fen),
        other => ImportError::InvalidStart(other.to_string()),
    })?;
    if chess960 && start.kind() == StartKind::Fen {
        start = Start::chess960_of(&initial).unwrap_or(start);
    }
    let mut game = Game::new(initial.clone());
    let mut moves = Vec::with_capacity(raw.moves.len());
    let mut shortened = None;
    let mut rules_would_have_ended = None;
    let mut cuts = Vec::new();
    let mut scratch = MoveList::new();
    for (i, token) in raw.moves.iter().enumerate() {
        if rules_would_have_ended.is_none() {
            rules_would_have_ended = automatic_end(&game).map(|outcome| (i, outcome));
        }
        let cut = |cut| Shortened {
            plies: i,
            dropped: raw.moves.len() - i,
            cut,
        };
        if NULL_MOVES.contains(&token.text.as_str()) {
            // Unless the position ended the game before it.
            game.position().legal_moves_into(&mut scratch);
            let why = match game.position().outcome_among(&scratch) {
                Some(outcome) if scratch.is_empty() => Cut::Ended(outcome),
                _ => Cut::NullMove,
            };
            shortened = Some(cut(why));
            break;
        }
        let m = match read_move(&game, token, &mut scratch) {
            Ok(m) => m,
            Err(NoMove::Ended(outcome)) => {
                shortened = Some(cut(Cut::Ended(outcome)));
                break;
            }
            Err(NoMove::Refused(reason)) => {
                return Err(ImportError::IllegalMove {
                    ply: i + 1,
                    text: token.text.clone(),
                    reason,
                });
            }
        };
        let variations = replay_variations(&game, &token.notes.variations, i + 1, &mut cuts);
        let (uci, san) = play(&mut game, m, &scratch);
        moves.push(ReplayedMove {
            played: m,
            uci,
            san,
            timestamp: token.timestamp.clone(),
            position_key: game.repetition_key(),
            notes: checked_notes(&token.notes, variations),
        });
    }
    let outcome = match shortened.map(|s| s.cut) {
        Some(Cut::Ended(outcome)) => Some(outcome),
        Some(Cut::NullMove) => None,
        None => {
            game.position().legal_moves_into(&mut scratch);
            if scratch.is_empty() {
                game.position().outcome_among(&scratch)
            } else {
                rules_would_have_ended = rules_would_have_ended
                    .or_else(|| game.outcome_among(&scratch).map(|o| (moves.len(), o)));
                None
            }
        }
    };
    let (result, mut warnings) = result_and_warnings(raw, outcome);
    if let Some((ply, outcome)) = rules_would_have_ended {
        warnings.push(ImportWarning::RulesWouldHaveEnded { ply, outcome });
    }
    warnings.extend(cuts);
    if raw.left_out_variations > 0 {
        warnings.push(ImportWarning::VariationsLeftOut(raw.left_out_variations));
    }
    Ok(ReplayedGame {
        rules,
        chess960,
        start,
        initial,
        comment: raw.comment.clone(),
        moves,
        position: game.position().clone(),
        outcome,
        result,
        shortened,
        rules_would_have_ended,
        warnings,
    })
}

/// The automatic draw that would end `game` now under today's rules while
/// moves are still legal (fivefold repetition, seventy-five moves, a dead
/// position), if any: checked only where one can be, since it takes the
/// legal moves.
fn automatic_end(game: &Game) -> Option<Outcome> {
    if !game.may_have_outcome_beside_mate() {
        return None;
    }
    let legal = game.position().legal_moves();
    if legal.is_empty() {
        return None; // an end the replay itself keeps
    }
    game.outcome_among(&legal)
}

/// Why a token is not played.
enum NoMove {
    /// Nothing is legal before it: the position ended the game.
    Ended(Outcome),
    /// It names no legal move: why.
    Refused(String),
}

/// The move `token` names in `game`'s position, found among the legal moves
/// that land where its SAN says (left in `moves`, for writing its SAN), or
/// the legal moves of the position when the text says no square or names
/// no move there. A move found proves the game goes on; with no legal move
/// at all, the position ended it.
fn read_move(game: &Game, token: &MoveToken, moves: &mut MoveList) -> Result<Move, NoMove> {
    let position = game.position();
    if let Some(san) = &token.san
        && let Some(wanted) = wanted_by(&san.san)
    {
        position.wanted_moves_into(wanted, moves);
        if let Ok(m) = position.resolve_san(&token.text, &san.san, moves) {
            return Ok(m);
        }
    }
    position.legal_moves_into(moves);
    if moves.is_empty()
        && let Some(outcome) = position.outcome_among(moves)
    {
        return Err(NoMove::Ended(outcome));
    }
    parse_token(position, token, moves).map_err(NoMove::Refused)
}

/// The moves a SAN can name: those landing on its square, or castling.
fn wanted_by(san: &San) -> Option<Wanted> {
    match *san {
        San::Normal { to, .. } | San::Put { to, .. } => Some(Wanted::to(to)),
        San::Castle(_) => Some(Wanted::CASTLING),
        San::Null => None,
    }
}

/// Plays `m`, read among `moves` (see [`read_move`]), and returns its
/// canonical UCI and SAN.
fn play(game: &mut Game, m: Move, moves: &MoveList) -> (String, String) {
    let position = game.position();
    let (uci, mut san) = (position.uci(&m), position.san_without_suffix(&m, moves));
    game.play_unchecked(m);
    san.extend(game.position().san_suffix());
    (uci, san)
}

/// A move token read under the rules: as SAN where the token is SAN,
/// kingpost's own reading otherwise, and kingpost's where UCI (`g1f3`)
/// reads as SAN that names no move. The error says why the move cannot be played.
fn parse_token(position: &Position, token: &MoveToken, legal: &MoveList) -> Result<Move, String> {
    if NULL_MOVES.contains(&token.text.as_str()) {
        return Err("a null move: no rule set lets a side pass".into());
    }
    let parsed = match &token.san {
        Some(san) => position
            .resolve_san(&token.text, &san.san, legal)
            .or_else(|e| position.parse_move_among(&token.text, legal).map_err(|_| e)),
        None => position.parse_move_among(&token.text, legal),
    };
    parsed.map_err(|e| e.to_string())
}

/// The variations that replace a move at `ply`, each played from `before`
/// (the position the move was played from) and cut at its first move the
/// rules refuse, the cut said in `cuts`. A variation cut at its first move
/// is left out.
fn replay_variations(
    before: &Game,
    lines: &[Vec<MoveToken>],
    ply: usize,
    cuts: &mut Vec<ImportWarning>,
) -> Vec<Vec<LineMove>> {
    lines
        .iter()
        .map(|line| replay_line(before, line, ply, cuts))
        .filter(|line| !line.is_empty())
        .collect()
}

fn replay_line(
    before: &Game,
    line: &[MoveToken],
    first_ply: usize,
    cuts: &mut Vec<ImportWarning>,
) -> Vec<LineMove> {
    let mut game = before.clone();
    let mut kept = Vec::with_capacity(line.len());
    let mut scratch = MoveList::new();
    for (i, token) in line.iter().enumerate() {
        let ply = first_ply + i;
        let reason = match read_move(&game, token, &mut scratch) {
            Ok(m) => {
                let variations = replay_variations(&game, &token.notes.variations, ply, cuts);
                let (uci, san) = play(&mut game, m, &scratch);
                kept.push(LineMove {
                    uci,
                    san,
                    notes: checked_notes(&token.notes, variations),
                });
                continue;
            }
            Err(NoMove::Ended(outcome)) => {
                format!("the position ended the line before it ({outcome})")
            }
            Err(NoMove::Refused(reason)) => reason,
        };
        cuts.push(ImportWarning::VariationCut {
            ply,
            text: token.text.clone(),
            reason,
        });
        break;
    }
    kept
}

/// A move's notes as written, with its variations as checked.
fn checked_notes(written: &Notes<MoveToken>, variations: Vec<Vec<LineMove>>) -> Notes<LineMove> {
    Notes {
        starting_comment: written.starting_comment.clone(),
        nags: written.nags.clone(),
        comment: written.comment.clone(),
        variations,
    }
}

/// The game's result, and what was read otherwise than written.
fn result_and_warnings(raw: &RawGame, outcome: Option<Outcome>) -> (String, Vec<ImportWarning>) {
    let mut warnings = Vec::new();
    if raw.windows_1252 {
        warnings.push(ImportWarning::Windows1252);
    }
    let tag = raw.tag("Result").map(str::trim);
    let from_tag = tag.and_then(result_of);
    if let (Some(text), None) = (tag, from_tag) {
        warnings.push(ImportWarning::NotAResult(text.to_owned()));
    }
    let stated = from_tag.or(raw.result).filter(|r| *r != "*");
    let result = match (outcome, stated) {
        (Some(outcome), stated) => {
            if let Some(stated) = stated.filter(|s| *s != outcome.result()) {
                warnings.push(ImportWarning::ResultOverruled {
                    stated: stated.to_owned(),
                    outcome,
                });
            }
            outcome.result()
        }
        (None, stated) => stated.unwrap_or("*"),
    };
    (result.to_owned(), warnings)
}
