// What the page needs to pick a move and keep the move list, with no chess
// rules in it: the board read from the server's FEN, the server's list of
// legal moves (UCI, SAN, kind and castling squares), and the moves a move's
// answer says it played.

export const FILES = "abcdefgh";

/** Whether a square is dark: a1 is, as on every chessboard, and h1 is not. */
export function isDark(square) {
  return (FILES.indexOf(square[0]) + Number(square[1])) % 2 === 1;
}

/** The squares from the top left, as the player at the bottom sees them. */
export function squareOrder(flipped) {
  const ranks = flipped ? [1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1];
  const files = flipped ? [...FILES].reverse() : [...FILES];
  return ranks.flatMap((rank) => files.map((file) => file + rank));
}

/** The square of the king of `color`, if it is on the board. */
export function kingSquare(board, color) {
  const king = color === "white" ? "K" : "k";
  for (const [square, unit] of board) if (unit === king) return square;
  return null;
}

/** The units on the board, the side to move and the units still to place. */
export function parseFen(fen) {
  const [placement, turn] = fen.split(" ");
  const [, ranks, held = ""] = placement.match(/^([^[]*)(?:\[([^\]]*)\])?$/);
  const board = new Map();
  ranks.split("/").forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (c >= "1" && c <= "8") {
        file += Number(c);
      } else {
        board.set(FILES[file] + (8 - i), c);
        file += 1;
      }
    }
  });
  return { board, turn: turn === "b" ? "black" : "white", held };
}

/** The colour of a unit letter: upper case for White. */
export function colorOf(letter) {
  return letter === letter.toUpperCase() ? "white" : "black";
}

/** A UCI move's parts: `e7e8q` or the placement `K@e1`. */
export function parseMove(uci) {
  if (uci[1] === "@") return { uci, put: uci[0], to: uci.slice(2, 4) };
  return { uci, from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] || null };
}

/**
 * The game after a move: the answer's state, and the moves read before
 * followed by those the answer played (it carries no whole move list).
 */
export function withPlayed(game, answer) {
  const { played, ...state } = answer;
  const before = game.moves.filter((m) => m.ply <= answer.ply - played.length);
  // A move's answer has no ratings: they stand as the game's view gave them.
  return { ...state, ratings: game.ratings, moves: before.concat(played) };
}

/**
 * Finds the legal moves that the squares and units a player picks stand
 * for, from the server's list alone. A move may be picked by more than one
 * pair of squares: a switch from either end; castling by the king to its
 * destination or onto the rook, and from the rook to its destination or
 * onto the king (in Captive Kings the king is the enemy's, so the castler
 * picks the rook).
 */
export class Picker {
  constructor(legalMoves, fen) {
    const { board, turn } = parseFen(fen);
    const own = (square) => board.has(square) && colorOf(board.get(square)) === turn;
    this.moves = legalMoves.map((m) => {
      const move = { ...parseMove(m.uci), san: m.san, kind: m.kind, castling: m.castling };
      move.pairs = pairsOf(move, own);
      return move;
    });
  }

  /** The moves picked by `a` then `b`. */
  between(a, b) {
    return this.moves.filter((m) => m.pairs.some(([x, y]) => x === a && y === b));
  }

  /** The squares that complete a move begun on `square`. */
  targets(square) {
    const out = new Set();
    for (const m of this.moves) for (const [x, y] of m.pairs) if (x === square) out.add(y);
    return out;
  }

  /** Whether a move may begin on `square`. */
  startsOn(square) {
    return this.targets(square).size > 0;
  }

  /** The placements of the unit letter `unit`. */
  placements(unit) {
    return this.moves.filter((m) => m.put === unit.toUpperCase());
  }

  /** The unit letters that have a placement now. */
  placeable() {
    return new Set(this.moves.filter((m) => m.put).map((m) => m.put));
  }
}

/** The pairs of squares that pick a move, each once. */
function pairsOf(move, own) {
  if (move.put) return [];
  const pairs = [[move.from, move.to]];
  const c = move.castling;
  if (c) {
    pairs.push(
      [c.king_from, c.king_to],
      [c.king_from, c.rook_from],
      [c.rook_from, c.rook_to],
      [c.rook_from, c.king_from],
    );
  } else if (own(move.from) && own(move.to)) {
    pairs.push([move.to, move.from]); // a switch, from either end
  }
  const seen = new Set();
  return pairs.filter(([x, y]) => {
    const key = x + y;
    if (x === y || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
