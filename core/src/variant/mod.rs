//! The rule sets of docs/spec/rules.md and the few places where they differ from the
//! common laws.
//!
//! Every rule set is a unit type implementing [`RuleSet`], whose methods are
//! the hooks of the one legality pipeline; each hook has the common-laws
//! behaviour as its default. [`Rules`] picks a rule set at run time and
//! dispatches to it. Nothing outside this module asks which rule set a game
//! uses: it calls a hook.

use std::{fmt, str::FromStr};

use shakmaty::{Bitboard, Board, ByColor, CastlingSide, Color, File, Rank, Square};

use crate::{Move, MoveList, Outcome, Position, PositionError, StartKind};

/// A rule set's once-per-game right, held by each side until spent
/// (docs/spec/rules.md §3, §5, §6.2; extended FEN field 7, §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Right {
    /// Teleporting Kings: the king's one teleport.
    Teleport,
    /// Captive Kings: the king is captive until its first move of its own.
    Captivity,
    /// King to Bunker Leap: the king's one leap.
    Leap,
}

impl Right {
    /// The right in a sentence, for players beside the board.
    pub const fn summary(self) -> &'static str {
        match self {
            Right::Teleport => {
                "Once a game each king may teleport to an empty square it could not otherwise \
                 reach and that no enemy unit attacks, when not in check."
            }
            Right::Captivity => {
                "Each king began on the other's square and is captive until its first move of \
                 its own, one step to a free square: a captive king cannot be checked. White \
                 wins with the king on rank 1, Black with the king on rank 8."
            }
            Right::Leap => {
                "Once a game a king that has never moved may leap along its first rank to the \
                 b- or g-file, over its own units but no enemy's, when neither it nor a square \
                 it crosses or reaches is attacked."
            }
        }
    }

    /// Its letter in FEN field 7, White's (upper case).
    pub const fn letter(self) -> char {
        match self {
            Right::Teleport => 'T',
            Right::Captivity => 'C',
            Right::Leap => 'L',
        }
    }
}

/// The hooks of the legality pipeline, with the common laws as defaults,
/// and the names of the rule set.
pub(crate) trait RuleSet {
    /// The key of the rule set in the API and the CLI (`teleporting-kings`).
    const KEY: &'static str;
    /// The PGN `Variant` tag of games from the usual array, and of games from
    /// a Chess960 array.
    const PGN_NAME: &'static str;
    const PGN_NAME_960: &'static str;
    /// Other `Variant` tags that name this rule set, lower case: from the
    /// usual array, and from Chess960 arrays.
    const PGN_ALIASES: &'static [&'static str] = &[];
    const PGN_ALIASES_960: &'static [&'static str] = &[];
    /// Whether the rule set's legal moves are the common ones alone: no
    /// added moves, castling by the common conditions. Then a generation
    /// of the moves to a few squares need not generate the rest.
    const ONLY_COMMON_MOVES: bool = false;

    /// Whether `color`'s king can be in check at all in this position.
    fn can_be_checked(_pos: &Position, _color: Color) -> bool {
        true
    }

    /// The king that castles with `color`'s rooks, if it stands where it can.
    fn castling_king(pos: &Position, color: Color) -> Option<Square> {
        pos.board()
            .king_of(color)
            .filter(|king| king.rank() == color.backrank())
    }

    /// Files of the king's and the rook's destinations when castling to `side`.
    fn castling_files(side: CastlingSide) -> (File, File) {
        match side {
            CastlingSide::KingSide => (File::G, File::F),
            CastlingSide::QueenSide => (File::C, File::D),
        }
    }

    /// Whether the rook on `rook` may castle now, beside the right itself
    /// and the path (which the pipeline checks).
    fn may_castle_with(_pos: &Position, _king: Square, _rook: Square) -> bool {
        true
    }

    /// The castling rights that stand after a move: a rule set may void
    /// rights that can never be used again.
    fn castling_rights_kept(pos: &Position) -> Bitboard {
        pos.castling_rooks()
    }

    /// Whether castling needs the king out of check and its path
    /// unattacked. Without, castling is tested like any added move.
    fn castling_checks_attacks() -> bool {
        true
    }

    /// Moves this rule set adds to the common ones, by its own conditions
    /// but before the test that the mover's king is safe afterwards, which
    /// the pipeline applies. `common` holds the legal common moves.
    fn add_extra_candidates(_pos: &Position, _common: &MoveList, _candidates: &mut MoveList) {}

    /// Whether `m` spends the mover's once-per-game right.
    fn spends_right(_pos: &Position, _m: &Move) -> bool {
        false
    }

    /// A win or loss this rule set decides beyond checkmate, in `pos`.
    fn outcome(_pos: &Position) -> Option<Outcome> {
        None
    }

    /// Squares on which `color` may have pawns.
    fn pawn_squares(_color: Color) -> Bitboard {
        !Bitboard::BACKRANKS
    }

    /// Squares from which `color`'s pawns may step two squares forward.
    fn double_step_origins(color: Color) -> Bitboard {
        Bitboard::from_rank(color.relative_rank(Rank::Second))
    }

    /// Whether `color` lacks the material to mate: common laws, with the
    /// definition shakmaty also uses (a lone minor piece, or bishops of one
    /// square colour only).
    fn has_insufficient_material(pos: &Position, color: Color) -> bool {
        let board = pos.board();
        let ours = board.by_color(color);
        if (ours & (board.pawns() | board.rooks_and_queens())).any() {
            return false;
        }
        if (ours & board.knights()).any() {
            return ours.count() <= 2
                && (board.by_color(!color) & !board.kings() & !board.queens()).is_empty();
        }
        if (ours & board.bishops()).any() {
            let one_colour = (board.bishops() & Bitboard::DARK_SQUARES).is_empty()
                || (board.bishops() & Bitboard::LIGHT_SQUARES).is_empty();
            return one_colour && board.pawns().is_empty() && board.knights().is_empty();
        }
        true
    }

    /// The rule set's once-per-game right, if it has one.
    fn right() -> Option<Right> {
        None
    }

    /// The rights a fresh game would have in `pos`: for a start, or a FEN
    /// without field 7.
    fn default_rights(_pos: &Position) -> ByColor<bool> {
        ByColor::new_with(|_| false)
    }

    /// Checks the rule set's own state in a parsed position.
    fn validate(_pos: &Position) -> Result<(), PositionError> {
        Ok(())
    }

    /// Turns a chosen array into this rule set's start.
    fn set_up_array(_board: &mut Board) {}

    /// The kinds of start this rule set is played from.
    fn starts() -> &'static [StartKind] {
        &[StartKind::Standard, StartKind::Chess960, StartKind::Fen]
    }

    /// Whether every game of this rule set writes castling king-to-rook.
    fn always_king_to_rook_castling() -> bool {
        false
    }

    /// How this rule set's own moves are written, for client authors.
    fn notation() -> &'static str {
        "Castling from the usual array is the king to its destination (e1g1), from every other \
         start the king to the rook (b1h1); each form is accepted as an alias where unambiguous. \
         SAN O-O and O-O-O."
    }
}

/// The rule sets, in the order of docs/spec/rules.md §1.1: each a variant of [`Rules`] and
/// the file whose type implements [`RuleSet`] for it. A new rule set is a
/// file and a line here; the enum, [`Rules::ALL`], the names and the
/// dispatch of every hook follow. (`$d` is a `$` for the inner macro.)
macro_rules! rule_sets {
    ($d:tt $($(#[$doc:meta])* $variant:ident => $module:ident::$ty:ident,)*) => {
        $(mod $module;)*

        /// A rule set of docs/spec/rules.md §1.1.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rules {
            $($(#[$doc])* $variant,)*
        }

        /// Calls `$method` of the rule set that `$rules` names.
        macro_rules! dispatch {
            ($d rules:expr, $d method:ident($d($d arg:expr),*)) => {
                match $d rules {
                    $(Rules::$variant => <$module::$ty as RuleSet>::$d method($d($d arg),*),)*
                }
            };
        }

        /// An associated constant of the rule set that `$rules` names.
        macro_rules! constant {
            ($d rules:expr, $d name:ident) => {
                match $d rules {
                    $(Rules::$variant => <$module::$ty as RuleSet>::$d name,)*
                }
            };
        }

        impl Rules {
            /// Every rule set, in the order of docs/spec/rules.md §1.1.
            pub const ALL: [Rules; [$(Rules::$variant),*].len()] = [$(Rules::$variant),*];
        }
    };
}

rule_sets! {$
    /// Chess by the FIDE laws, from the usual array or a Chess960 array.
    Standard => standard::Standard,
    /// Each king may teleport once per game.
    TeleportingKings => teleporting_kings::TeleportingKings,
    /// Two adjacent own units may exchange squares instead of a move.
    Switching => switching::Switching,
    /// The kings start on each other's squares, immune to check until they
    /// first move, and race to their own first rank.
    CaptiveKings => captive_kings::CaptiveKings,
    /// King to Bunker Leap: b/c and g/f castling and a once-per-game leap
    /// along the first rank, from Shuffle and Pre-chess starts too.
    BunkerLeap => bunker_leap::BunkerLeap,
}

impl Rules {
    /// The key of the rule set in the API and the CLI (`standard`).
    pub const fn key(self) -> &'static str {
        constant!(self, KEY)
    }

    /// The PGN `Variant` tag: `chess960` says whether the game started from a
    /// Chess960 array rather than the usual one.
    pub const fn pgn_name(self, chess960: bool) -> &'static str {
        if chess960 {
            constant!(self, PGN_NAME_960)
        } else {
            constant!(self, PGN_NAME)
        }
    }

    /// Other `Variant` tags of the rule set, lower case, and whether they
    /// name a Chess960 game.
    pub fn pgn_aliases(self) -> impl Iterator<Item = (&'static str, bool)> {
        let usual = constant!(self, PGN_ALIASES).iter().map(|a| (*a, false));
        usual.chain(constant!(self, PGN_ALIASES_960).iter().map(|a| (*a, true)))
    }

    pub(crate) const fn only_common_moves(self) -> bool {
        constant!(self, ONLY_COMMON_MOVES)
    }

    pub(crate) fn can_be_checked(self, pos: &Position, color: Color) -> bool {
        dispatch!(self, can_be_checked(pos, color))
    }

    pub(crate) fn castling_king(self, pos: &Position, color: Color) -> Option<Square> {
        dispatch!(self, castling_king(pos, color))
    }

    pub(crate) fn castling_files(self, side: CastlingSide) -> (File, File) {
        dispatch!(self, castling_files(side))
    }

    pub(crate) fn may_castle_with(self, pos: &Position, king: Square, rook: Square) -> bool {
        dispatch!(self, may_castle_with(pos, king, rook))
    }

    pub(crate) fn castling_rights_kept(self, pos: &Position) -> Bitboard {
        dispatch!(self, castling_rights_kept(pos))
    }

    pub(crate) fn castling_checks_attacks(self) -> bool {
        dispatch!(self, castling_checks_attacks())
    }

    pub(crate) fn add_extra_candidates(
        self,
        pos: &Position,
        common: &MoveList,
        candidates: &mut MoveList,
    ) {
        dispatch!(self, add_extra_candidates(pos, common, candidates))
    }

    pub(crate) fn spends_right(self, pos: &Position, m: &Move) -> bool {
        dispatch!(self, spends_right(pos, m))
    }

    pub(crate) fn outcome(self, pos: &Position) -> Option<Outcome> {
        dispatch!(self, outcome(pos))
    }

    pub(crate) fn pawn_squares(self, color: Color) -> Bitboard {
        dispatch!(self, pawn_squares(color))
    }

    pub(crate) fn double_step_origins(self, color: Color) -> Bitboard {
        dispatch!(self, double_step_origins(color))
    }

    pub(crate) fn has_insufficient_material(self, pos: &Position, color: Color) -> bool {
        dispatch!(self, has_insufficient_material(pos, color))
    }

    /// The rule set's once-per-game right of each side, if it has one
    /// (docs/spec/rules.md §8, field 7).
    pub fn right(self) -> Option<Right> {
        dispatch!(self, right())
    }

    /// The letter of the rule set's right in FEN field 7 (`T` for White,
    /// `t` for Black), if it has one.
    pub(crate) fn rights_letter(self) -> Option<char> {
        self.right().map(Right::letter)
    }

    pub(crate) fn default_rights(self, pos: &Position) -> ByColor<bool> {
        dispatch!(self, default_rights(pos))
    }

    pub(crate) fn validate(self, pos: &Position) -> Result<(), PositionError> {
        dispatch!(self, validate(pos))
    }

    pub(crate) fn set_up_array(self, board: &mut Board) {
        dispatch!(self, set_up_array(board))
    }

    /// The kinds of start this rule set is played from.
    pub fn starts(self) -> &'static [StartKind] {
        dispatch!(self, starts())
    }

    pub(crate) fn always_king_to_rook_castling(self) -> bool {
        dispatch!(self, always_king_to_rook_castling())
    }

    /// How this rule set's own moves are written (docs/spec/rules.md §7, notation).
    pub fn notation(self) -> &'static str {
        dispatch!(self, notation())
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A rule set key that names no rule set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule set `{0}` (known: {known})", known = known_keys())]
pub struct UnknownRules(pub String);

fn known_keys() -> String {
    Rules::ALL.map(Rules::key).join(", ")
}

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(key: &str) -> Result<Rules, UnknownRules> {
        Rules::ALL
            .into_iter()
            .find(|rules| rules.key() == key)
            .ok_or_else(|| UnknownRules(key.to_owned()))
    }
}
