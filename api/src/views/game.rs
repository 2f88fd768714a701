//! Games: their state, moves, history, listings, conditional moves and
//! the analysis of positions.

use kingpost_core::{DrawReason, Move, MoveKind, MoveList, Outcome, Position, WinReason};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ClockView, GameRatings, RuleKey, StartSpec, Timestamp};
use crate::stored::text_enum;

text_enum! {
    /// How a game ended: the rules' reasons (docs/spec/rules.md §2.3, ends of a game),
    /// and the players' and the clock's.
    #[derive(ToSchema)]
    pub enum Termination ("termination") {
        Checkmate = "checkmate",
        /// Captive Kings: a free king reached its goal rank.
        GoalRank = "goal_rank",
        Stalemate = "stalemate",
        InsufficientMaterial = "insufficient_material",
        FivefoldRepetition = "fivefold_repetition",
        SeventyFiveMoves = "seventy_five_moves",
        /// Claimed by the player to move.
        ThreefoldRepetition = "threefold_repetition",
        /// Claimed by the player to move.
        FiftyMoves = "fifty_moves",
        Resignation = "resignation",
        Agreement = "agreement",
        /// The side to move ran out of time (a draw when the opponent could
        /// not mate).
        Timeout = "timeout",
        /// Ended before each side had moved.
        Aborted = "aborted",
        /// Drawn by the rules of its tournament: under way at its round's
        /// deadline.
        Adjudication = "adjudication",
        /// Lost by the rules of its team match: its player lost the
        /// board's other game on time.
        Forfeit = "forfeit",
    }
}

impl From<Outcome> for Termination {
    fn from(outcome: Outcome) -> Termination {
        match outcome {
            Outcome::Decisive { reason, .. } => match reason {
                WinReason::Checkmate => Termination::Checkmate,
                WinReason::GoalRank => Termination::GoalRank,
            },
            Outcome::Draw(reason) => reason.into(),
        }
    }
}

impl From<DrawReason> for Termination {
    fn from(reason: DrawReason) -> Termination {
        match reason {
            DrawReason::Stalemate => Termination::Stalemate,
            DrawReason::InsufficientMaterial => Termination::InsufficientMaterial,
            DrawReason::FivefoldRepetition => Termination::FivefoldRepetition,
            DrawReason::SeventyFiveMoves => Termination::SeventyFiveMoves,
            DrawReason::ThreefoldRepetition => Termination::ThreefoldRepetition,
            DrawReason::FiftyMoves => Termination::FiftyMoves,
        }
    }
}

text_enum! {
    /// A game's result as PGN writes it; `*` for an imported game that
    /// states none.
    #[derive(ToSchema)]
    pub enum GameResult ("result") {
        WhiteWon = "1-0",
        BlackWon = "0-1",
        Draw = "1/2-1/2",
        Unknown = "*",
    }
}

impl GameResult {
    /// The result of a game won by `winner`, or drawn, as core writes it.
    pub fn of(winner: Option<kingpost_core::Color>) -> GameResult {
        kingpost_core::result_for(winner)
            .parse()
            .expect("core writes one of the results")
    }
}

/// A player of a game or a challenge.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerView {
    pub username: String,
    /// A BOT account: an engine.
    pub bot: bool,
}

/// A player of a game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GamePlayerView {
    pub username: String,
    /// While on vacation, the player's clocks stand still.
    pub on_vacation: bool,
    /// A BOT account: an engine.
    pub bot: bool,
}

/// What one side may do in a game now, as the server decides it: a client
/// offers these and keeps no rule of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct SideActions {
    /// Play a move: it is this side's turn.
    #[serde(rename = "move")]
    pub play: bool,
    pub resign: bool,
    /// Abort: before both sides have moved, and never in a tournament.
    pub abort: bool,
    /// Offer a draw: no offer stands.
    pub offer_draw: bool,
    /// Accept or decline the opponent's standing offer.
    pub answer_draw: bool,
    /// Withdraw its own standing offer.
    pub withdraw_draw: bool,
    /// Claim the draw of `claimable_draw`: the side to move, when one is.
    pub claim_draw: bool,
}

/// What each side may do now; all false once the game is over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct GameActions {
    pub white: SideActions,
    pub black: SideActions,
}

text_enum! {
    /// A side: `white` or `black`.
    #[derive(ToSchema)]
    pub enum Side ("side") {
        White = "white",
        Black = "black",
    }
}

impl From<kingpost_core::Color> for Side {
    fn from(color: kingpost_core::Color) -> Side {
        match color {
            kingpost_core::Color::White => Side::White,
            kingpost_core::Color::Black => Side::Black,
        }
    }
}

/// A rule set's once-per-game right (docs/spec/rules.md §8, extended FEN
/// field 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RightKind {
    /// Teleporting Kings: the king's one teleport.
    Teleport,
    /// Captive Kings: the king's captivity, until its first move.
    Captivity,
    /// King to Bunker Leap: the king's one leap.
    Leap,
}

/// Where a side stands with the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RightStanding {
    /// Still held: the teleport or leap unspent, the king still captive.
    Held,
    /// Spent or gone: teleported, leapt or moved, the king free.
    Spent,
    /// Pre-chess: the right comes with the array once the placement is done.
    AfterPlacement,
}

/// Each side's standing with the rule set's once-per-game right, and the
/// right in a sentence, so that a client shows it without reading FEN.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RightsView {
    pub right: RightKind,
    pub white: RightStanding,
    pub black: RightStanding,
    /// The right in a sentence, for players.
    pub summary: String,
}

impl RightsView {
    /// The rights of `pos`; none for a rule set without one.
    pub fn of(pos: &kingpost_core::Position) -> Option<RightsView> {
        use kingpost_core::{Color, Right};
        let right = pos.rules().right()?;
        let standing = |color: Color| {
            if !pos.is_placement_done() {
                RightStanding::AfterPlacement
            } else if pos.has_right(color) {
                RightStanding::Held
            } else {
                RightStanding::Spent
            }
        };
        Some(RightsView {
            right: match right {
                Right::Teleport => RightKind::Teleport,
                Right::Captivity => RightKind::Captivity,
                Right::Leap => RightKind::Leap,
            },
            white: standing(Color::White),
            black: standing(Color::Black),
            summary: right.summary().to_owned(),
        })
    }
}

/// A move played, as the move list shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoveView {
    /// 1 for White's first move.
    pub ply: i32,
    /// Canonical UCI (docs/spec/rules.md §7, notation).
    pub uci: String,
    /// SAN with check and mate marks.
    pub san: String,
    /// RFC 3339, UTC; unknown for some moves of imported games.
    pub played_at: Option<Timestamp>,
}

/// A legal move in both notations, with its kind, so that a client can
/// name it and find it from the squares a player picks.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LegalMoveView {
    pub uci: String,
    pub san: String,
    pub kind: MoveKindView,
    /// For castling: where the king and the rook stand and land (in Captive
    /// Kings the king is the enemy's), so that any of these squares can pick
    /// it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub castling: Option<CastlingView>,
}

impl LegalMoveView {
    /// `m`, one of the legal moves `legal` of `pos`.
    pub fn new(pos: &Position, m: &Move, legal: &MoveList) -> LegalMoveView {
        let castling = match *m {
            Move::Castle { king, rook } => {
                let (king_to, rook_to) = pos.castling_destinations(king, rook);
                Some(CastlingView {
                    king_from: king.to_string(),
                    king_to: king_to.to_string(),
                    rook_from: rook.to_string(),
                    rook_to: rook_to.to_string(),
                })
            }
            _ => None,
        };
        LegalMoveView {
            uci: pos.uci(m),
            san: pos.san_among(m, legal),
            kind: m.kind().into(),
            castling,
        }
    }

    /// Every legal move of `pos`.
    pub fn all(pos: &Position) -> Vec<LegalMoveView> {
        let legal = pos.legal_moves();
        legal
            .iter()
            .map(|m| LegalMoveView::new(pos, m, &legal))
            .collect()
    }
}

/// What kind of move a move is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveKindView {
    /// A unit moves, capturing or not, a pawn maybe promoting.
    Normal,
    EnPassant,
    Castling,
    /// Teleporting Kings: the king's once-per-game teleport.
    Teleport,
    /// King to Bunker Leap: the king's once-per-game leap.
    Leap,
    /// Switching: two adjacent own units exchange squares.
    Switch,
    /// Pre-chess: a unit placed from the holding.
    Placement,
}

impl From<MoveKind> for MoveKindView {
    fn from(kind: MoveKind) -> MoveKindView {
        match kind {
            MoveKind::Normal => MoveKindView::Normal,
            MoveKind::EnPassant => MoveKindView::EnPassant,
            MoveKind::Castling => MoveKindView::Castling,
            MoveKind::Teleport => MoveKindView::Teleport,
            MoveKind::Leap => MoveKindView::Leap,
            MoveKind::Switch => MoveKindView::Switch,
            MoveKind::Placement => MoveKindView::Placement,
        }
    }
}

/// The squares of a castling move.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CastlingView {
    pub king_from: String,
    pub king_to: String,
    pub rook_from: String,
    pub rook_to: String,
}

text_enum! {
    /// Whether the game is under way, over, or aborted (counting for nothing).
    #[derive(ToSchema)]
    pub enum GameStatus ("game status") {
        Started = "started",
        Finished = "finished",
        /// Ended before each side had moved: the game counts for nothing.
        Aborted = "aborted",
        /// Imported from PGN, for study.
        Imported = "imported",
    }
}

/// A game as its players and watchers see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameView {
    #[serde(flatten)]
    pub state: GameState,
    /// A rated game's ratings: as it began, and the change once finished.
    pub ratings: Option<GameRatings>,
    /// Every move played, from White's first.
    pub moves: Vec<MoveView>,
}

/// The answer to a move: the game's state, and instead of the whole move
/// list the moves this request added (so that its size does not grow with
/// the game).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoveAnswer {
    #[serde(flatten)]
    pub state: GameState,
    /// The moves played after the `ply` the move was sent for: the
    /// caller's, then the opponent's conditional reply if one was ready.
    pub played: Vec<MoveView>,
}

/// A game without its move list: players, position, status, deadline,
/// legal moves.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameState {
    pub id: String,
    pub rules: RuleKey,
    /// The PGN `Variant` name.
    pub variant: String,
    pub start: StartSpec,
    /// A standard game's opening, once it reached a named position.
    pub opening: Option<Opening>,
    pub white: GamePlayerView,
    pub black: GamePlayerView,
    pub initial_fen: String,
    /// The current position, as extended FEN.
    pub fen: String,
    /// Plies played so far: send it back with the next move.
    pub ply: i32,
    pub turn: Side,
    pub status: GameStatus,
    /// Whether its result moves the players' ratings.
    pub rated: bool,
    /// Set once finished.
    pub result: Option<GameResult>,
    /// How the game ended, once it has.
    pub termination: Option<Termination>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// Each side's once-per-game right, in the rule sets that have one.
    pub rights: Option<RightsView>,
    /// The days each side has for a move (see `DaysPerMove`); 0 for an
    /// imported game and under a `clock`.
    pub days_per_move: i32,
    /// A clock that carries time over, with each side's time left.
    pub clock: Option<ClockView>,
    /// Whether a player's vacation stops this game's clock: always, but in
    /// a tournament that says otherwise.
    pub vacation_allowed: bool,
    /// When the side to move loses on time (RFC 3339, UTC), its vacation
    /// counted where it is allowed.
    pub deadline: Option<Timestamp>,
    /// Seconds until the deadline.
    pub time_left_seconds: Option<i64>,
    /// The side whose draw offer stands.
    pub draw_offer: Option<Side>,
    /// The draw the side to move may claim now: `threefold_repetition` or `fifty_moves`.
    pub claimable_draw: Option<Termination>,
    /// What each side may do now.
    pub actions: GameActions,
    /// The legal moves of the side to move; empty once finished.
    pub legal_moves: Vec<LegalMoveView>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A game in a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    pub rules: RuleKey,
    pub variant: String,
    pub start: StartSpec,
    pub white: PlayerView,
    pub black: PlayerView,
    pub fen: String,
    pub ply: i32,
    pub turn: Side,
    pub status: GameStatus,
    pub result: Option<GameResult>,
    pub termination: Option<Termination>,
    /// Whether the caller is to move.
    pub my_turn: bool,
    pub deadline: Option<Timestamp>,
    pub updated_at: Timestamp,
}

/// One page of the caller's games.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameList {
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
    /// How many games await the caller's move.
    pub my_turn_count: i64,
}

/// A position to analyse.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    #[schema(value_type = RuleKey)]
    pub rules: String,
    /// An extended FEN of that rule set.
    pub fen: String,
    /// Moves to play from `fen` first, in UCI or SAN (an analysis board's
    /// line): the answer is of the position after them. At most 600.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// A move of an analysed line, in both notations.
#[derive(Debug, Serialize, ToSchema)]
pub struct LineMoveView {
    /// Canonical UCI (docs/spec/rules.md §7, notation).
    pub uci: String,
    /// SAN with check and mate marks.
    pub san: String,
}

/// How a position ends the game, if it does.
#[derive(Debug, Serialize, ToSchema)]
pub struct OutcomeView {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: GameResult,
    /// `checkmate`, `stalemate`, `goal_rank`, `insufficient_material`, `seventy_five_moves`.
    pub termination: Termination,
}

/// What the rules say of a position.
#[derive(Debug, Serialize, ToSchema)]
pub struct AnalysisView {
    /// The position's FEN as kingpost writes it: after `line`, if any.
    pub fen: String,
    /// The request's `moves` as played, each in canonical UCI and SAN.
    pub line: Vec<LineMoveView>,
    pub turn: Side,
    pub check: bool,
    /// Each side's once-per-game right, in the rule sets that have one.
    pub rights: Option<RightsView>,
    pub legal_moves: Vec<LegalMoveView>,
    /// Set when the position itself ends the game (repetitions need a game's history).
    pub outcome: Option<OutcomeView>,
}

/// A move to play.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// The move in UCI or SAN (docs/spec/rules.md §7, notation).
    #[serde(rename = "move")]
    pub text: String,
    /// The game's `ply` the move was computed for: a guard against stale
    /// and repeated requests.
    pub ply: i32,
    /// Offer a draw with the move.
    #[serde(default)]
    pub offer_draw: bool,
    /// A message to the opponent with the move: plain text, 1 to 500
    /// characters. Only the game's players read it; it is not in the PGN.
    pub message: Option<String>,
}

/// Which games to list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    #[default]
    Ongoing,
    Finished,
}

/// One position of a game.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlyView {
    /// 0 for the start.
    pub ply: i32,
    pub fen: String,
    /// Whether the side to move is in check.
    pub check: bool,
    /// Each side's once-per-game right, in the rule sets that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rights: Option<RightsView>,
    /// The move that led here; none at the start.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub played: Option<PlayedView>,
}

/// A move of the game, with its kind.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayedView {
    pub uci: String,
    pub san: String,
    pub kind: MoveKindView,
}

/// Every position of a game, the start first.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryView {
    pub positions: Vec<PlyView>,
}

/// Lines of moves, each beginning with an opponent's move and alternating.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Conditionals {
    /// Each line: the opponent's move, the reply, the opponent's next move,
    /// the reply... in UCI or SAN when stored, canonical UCI when read.
    pub lines: Vec<Vec<String>>,
}

/// A player's conditional lines as stored: in canonical UCI, and the same
/// moves in SAN for people to read.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct StoredConditionals {
    /// Each line: the opponent's move, the reply, ... in canonical UCI.
    pub lines: Vec<Vec<String>>,
    /// The same lines in SAN, each move from the position the line reached.
    pub san: Vec<Vec<String>>,
}

/// A standard game's opening, from the lichess opening tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct Opening {
    /// The Encyclopaedia of Chess Openings code, `A00` to `E99`.
    pub eco: String,
    pub name: String,
}
