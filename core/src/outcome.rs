//! How a game ends by the rules.

use std::fmt;

use shakmaty::Color;

/// Why a game was won, as the rules decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    Checkmate,
    /// Captive Kings: the winner's free king reached its own first rank.
    GoalRank,
}

/// Why a game was drawn, as the rules decide it or a claim asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    Stalemate,
    InsufficientMaterial,
    /// Drawn at once (docs/spec/rules.md §2.3): the same position for the fifth time.
    FivefoldRepetition,
    /// Drawn at once (docs/spec/rules.md §2.3): 75 moves by each side without a capture
    /// or a pawn move.
    SeventyFiveMoves,
    /// Claimed by the player to move: the same position for the third time.
    ThreefoldRepetition,
    /// Claimed by the player to move: 50 moves by each side without a
    /// capture or a pawn move.
    FiftyMoves,
}

/// A position standing this often in a game is drawn at once (docs/spec/rules.md §2.3).
const AUTOMATIC_REPETITIONS: usize = 5;
/// From this many times, the player to move may claim the draw (docs/spec/rules.md §2.3).
pub(crate) const CLAIMABLE_REPETITIONS: usize = 3;

/// The PGN result of a game won by `winner`, or drawn: `1-0`, `0-1`,
/// `1/2-1/2`. For ends the board does not decide (resignation, time).
pub const fn result_for(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
}

/// The draw that a position standing `occurrences` times in its game (this
/// time included) makes at once: fivefold repetition.
pub const fn repetition_outcome(occurrences: usize) -> Option<Outcome> {
    if occurrences >= AUTOMATIC_REPETITIONS {
        Some(Outcome::Draw(DrawReason::FivefoldRepetition))
    } else {
        None
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Decisive { winner: Color, reason: WinReason },
    Draw(DrawReason),
}

impl Outcome {
    pub(crate) const fn checkmate(winner: Color) -> Outcome {
        Outcome::Decisive {
            winner,
            reason: WinReason::Checkmate,
        }
    }

    /// The winner, if any.
    pub const fn winner(&self) -> Option<Color> {
        match *self {
            Outcome::Decisive { winner, .. } => Some(winner),
            Outcome::Draw(_) => None,
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn result(&self) -> &'static str {
        result_for(self.winner())
    }

    /// A stable snake_case name of the reason, for the API and the CLI.
    pub const fn reason(&self) -> &'static str {
        match self {
            Outcome::Decisive { reason, .. } => reason.key(),
            Outcome::Draw(reason) => reason.key(),
        }
    }
}

impl WinReason {
    /// A stable snake_case name.
    pub const fn key(self) -> &'static str {
        match self {
            WinReason::Checkmate => "checkmate",
            WinReason::GoalRank => "goal_rank",
        }
    }
}

impl DrawReason {
    /// A stable snake_case name.
    pub const fn key(self) -> &'static str {
        match self {
            DrawReason::Stalemate => "stalemate",
            DrawReason::InsufficientMaterial => "insufficient_material",
            DrawReason::FivefoldRepetition => "fivefold_repetition",
            DrawReason::SeventyFiveMoves => "seventy_five_moves",
            DrawReason::ThreefoldRepetition => "threefold_repetition",
            DrawReason::FiftyMoves => "fifty_moves",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.result(), self.reason())
    }
}
