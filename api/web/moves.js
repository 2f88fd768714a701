// What the page needs to pick a move and keep the move list, with no chess
// rules in it: the board read from the server's FEN, the server's list of
// legal moves in UCI, and the moves a move's answer says it played.

export const FILES = "abcdefgh";

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
  return { ...state, moves: before.concat(played) };
}

/**
 * Finds the legal moves that the squares and units a player picks stand
 * for. A move between two units of the side to move (a switch, or a
 * castling written king to rook) may be picked from either end.
 */
export class Picker {
  constructor(legalMoves, fen) {
    const { board, turn } = parseFen(fen);
    this.moves = legalMoves.map((m) => ({ ...parseMove(m.uci), san: m.san }));
    const own = (square) => board.has(square) && colorOf(board.get(square)) === turn;
    for (const m of this.moves) m.pair = Boolean(m.from) && own(m.from) && own(m.to);
  }

  /** The moves between `a` and `b`, picked in that order. */
  between(a, b) {
    return this.moves.filter(
      (m) => (m.from === a && m.to === b) || (m.pair && m.from === b && m.to === a),
    );
  }

  /** The squares that complete a move begun on `square`. */
  targets(square) {
    const out = new Set();
    for (const m of this.moves) {
      if (m.from === square) out.add(m.to);
      if (m.pair && m.to === square) out.add(m.from);
    }
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
