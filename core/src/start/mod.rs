//! Start positions (docs/spec/rules.md §1.2, starts): the usual array, the 960 Chess960
//! arrays by Scharnagl number, the 2880 shuffle arrays, and FEN.

use shakmaty::{Bitboard, Board, ByColor, Color, File, Rank, Role, Square};

pub(crate) mod prechess;

use crate::{FenError, Outcome, Position, Rules, WinReason, position::CastlingNotation};

/// The number of Chess960 arrays.
pub const CHESS960_COUNT: u16 = 960;
/// The number of shuffle arrays: three patterns for every Chess960 array.
pub const SHUFFLE_COUNT: u16 = 2880;
/// The Scharnagl number of the usual array.
pub const USUAL_ARRAY: u16 = 518;

/// Where a game begins.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Start {
    /// The usual array.
    Standard,
    /// A Chess960 array by Scharnagl number, 0..960.
    Chess960(u16),
    /// A shuffle array by its id, 0..2880.
    Shuffle(u16),
    /// Empty back ranks and a placement phase (King to Bunker Leap).
    Prechess,
    /// A position given as extended FEN.
    Fen(String),
}

/// The kinds of start, as the API and the CLI name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StartKind {
    Standard,
    Chess960,
    Shuffle,
    Prechess,
    Fen,
}

impl StartKind {
    pub const fn key(self) -> &'static str {
        match self {
            StartKind::Standard => "standard",
            StartKind::Chess960 => "chess960",
            StartKind::Shuffle => "shuffle",
            StartKind::Prechess => "prechess",
            StartKind::Fen => "fen",
        }
    }
}

impl Start {
    pub const fn kind(&self) -> StartKind {
        match self {
            Start::Standard => StartKind::Standard,
            Start::Chess960(_) => StartKind::Chess960,
            Start::Shuffle(_) => StartKind::Shuffle,
            Start::Prechess => StartKind::Prechess,
            Start::Fen(_) => StartKind::Fen,
        }
    }
}

/// A start that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a start: expected standard, chess960:<0-959>, shuffle:<0-2879> or prechess")]
pub struct ParseStartError(pub String);

impl std::str::FromStr for Start {
    type Err = ParseStartError;

    /// Reads `standard`, `chess960:<n>`, `shuffle:<id>` or `prechess` (a
    /// FEN start is given as the FEN itself).
    fn from_str(text: &str) -> Result<Start, ParseStartError> {
        let error = || ParseStartError(text.to_owned());
        match text.split_once(':') {
            None if text == "standard" => Ok(Start::Standard),
            None if text == "prechess" => Ok(Start::Prechess),
            Some(("chess960", n)) => n.parse().map(Start::Chess960).map_err(|_| error()),
            Some(("shuffle", id)) => id.parse().map(Start::Shuffle).map_err(|_| error()),
            _ => Err(error()),
        }
    }
}

/// Why a start cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error("Chess960 array {0} does not exist: they are numbered 0 to 959")]
    Chess960OutOfRange(u16),
    #[error("shuffle array {0} does not exist: they are numbered 0 to 2879")]
    ShuffleOutOfRange(u16),
    #[error("{rules} is not played from a {} start", kind.key())]
    NotForRules { rules: Rules, kind: StartKind },
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error("the game in this position is already over: {winner:?} has won ({})", reason.key())]
    AlreadyWon { winner: Color, reason: WinReason },
}

/// The back rank of Chess960 array `number` (Scharnagl's numbering), files a to h.
pub fn chess960_array(number: u16) -> Option<[Role; 8]> {
    shuffle_array(number).filter(|_| number < CHESS960_COUNT)
}

/// The back rank of shuffle array `id = sp + 960 * p`: the Chess960 array
/// `sp` with its R, K, R squares filled by pattern `p` (0 R K R, 1 K R R,
/// 2 R R K).
pub fn shuffle_array(id: u16) -> Option<[Role; 8]> {
    if id >= SHUFFLE_COUNT {
        return None;
    }
    let (mut n, pattern) = (
        usize::from(id % CHESS960_COUNT),
        usize::from(id / CHESS960_COUNT),
    );
    let mut array: [Option<Role>; 8] = [None; 8];
    array[(n % 4) * 2 + 1] = Some(Role::Bishop);
    n /= 4;
    array[(n % 4) * 2] = Some(Role::Bishop);
    n /= 4;
    place_on_free(&mut array, n % 6, Role::Queen);
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (first, second) = KNIGHTS[n];
    // Place the later knight first so the earlier index still counts the same free squares.
    place_on_free(&mut array, second, Role::Knight);
    place_on_free(&mut array, first, Role::Knight);
    let patterns = [
        [Role::Rook, Role::King, Role::Rook],
        [Role::King, Role::Rook, Role::Rook],
        [Role::Rook, Role::Rook, Role::King],
    ];
    for role in patterns[pattern] {
        place_on_free(&mut array, 0, role);
    }
    Some(array.map(|role| role.expect("every square filled")))
}

fn place_on_free(array: &mut [Option<Role>; 8], index: usize, role: Role) {
    let square = array
        .iter()
        .enumerate()
        .filter(|(_, role)| role.is_none())
        .nth(index)
        .map(|(i, _)| i)
        .expect("enough free squares");
    array[square] = Some(role);
}

/// A board with `array` on both back ranks, mirrored, and pawns before them.
fn board_from_array(array: [Role; 8]) -> Board {
    let mut board = Board::empty();
    for (file, role) in array.into_iter().enumerate() {
        let file = File::new(file as u32);
        for color in Color::ALL {
            board.set_piece_at(Square::from_coords(file, color.backrank()), role.of(color));
            let pawn_rank = color.relative_rank(Rank::Second);
            board.set_piece_at(Square::from_coords(file, pawn_rank), Role::Pawn.of(color));
        }
    }
    board
}

impl Position {
    /// The usual start position of a rule set.
    pub fn new(rules: Rules) -> Position {
        Position::from_start(rules, &Start::Standard)
            .expect("the usual array is a start of every rule set")
    }

    /// The start position of a rule set from `start`.
    pub fn from_start(rules: Rules, start: &Start) -> Result<Position, StartError> {
        if !rules.starts().contains(&start.kind()) {
            return Err(StartError::NotForRules {
                rules,
                kind: start.kind(),
            });
        }
        let (board, holdings, notation) = match *start {
            Start::Standard => (
                board_from_array(shuffle_array(USUAL_ARRAY).expect("usual array")),
                ByColor::default(),
                CastlingNotation::KingToDestination,
            ),
            Start::Chess960(n) => (
                board_from_array(chess960_array(n).ok_or(StartError::Chess960OutOfRange(n))?),
                ByColor::default(),
                CastlingNotation::KingToRook,
            ),
            Start::Shuffle(id) => (
                board_from_array(shuffle_array(id).ok_or(StartError::ShuffleOutOfRange(id))?),
                ByColor::default(),
                CastlingNotation::KingToRook,
            ),
            Start::Prechess => (
                prechess::board(),
                prechess::full_holdings(),
                CastlingNotation::KingToRook,
            ),
            Start::Fen(ref fen) => return Position::from_fen(rules, fen)?.refuse_if_won(),
        };
        let notation = if rules.always_king_to_rook_castling() {
            CastlingNotation::KingToRook
        } else {
            notation
        };
        let mut pos = Position {
            rules,
            board,
            turn: Color::White,
            castling_rooks: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
            rights: ByColor::new_with(|_| false),
            holdings,
            castling_notation: notation,
        };
        rules.set_up_array(&mut pos.board);
        // Rights follow from the array: captivity and leaps first, since
        // they decide which king castles.
        pos.rights = rules.default_rights(&pos);
        pos.castling_rooks = pos.initial_castling_rooks();
        debug_assert_eq!(pos.validate(), Ok(()));
        Ok(pos)
    }
}

impl Position {
    /// A game cannot start where it is already won or lost (docs/spec/rules.md §2.6,
    /// `fen` starts), although such a position can be read and looked at.
    fn refuse_if_won(self) -> Result<Position, StartError> {
        match self.outcome() {
            Some(Outcome::Decisive { winner, reason }) => {
                Err(StartError::AlreadyWon { winner, reason })
            }
            _ => Ok(self),
        }
    }
}

impl Start {
    /// The numbered Chess960 start that `position` is, if it is one: for
    /// games that give their Chess960 array as a FEN.
    pub fn chess960_of(position: &Position) -> Option<Start> {
        let back_rank = File::ALL.map(|file| {
            position
                .board()
                .role_at(Square::from_coords(file, Rank::First))
        });
        (0..CHESS960_COUNT)
            .find(|&n| chess960_array(n).map(|array| array.map(Some)) == Some(back_rank))
            .map(Start::Chess960)
            .filter(|start| {
                Position::from_start(position.rules(), start)
                    .is_ok_and(|array| array.fen() == position.fen())
            })
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::new(Rules::Standard)
    }
}
