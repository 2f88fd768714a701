// What the page says, in words a player reads: results, moves, starts,
// deadlines and the server's problems.

import { ApiError } from "./api.js";
import { pieceName } from "./pieces.js";

/** A snake_case code as words: `threefold_repetition`, "threefold repetition". */
export function words(code) {
  return code ? code.replaceAll("_", " ") : "";
}

/** The server's problem, for a player: quotes for code marks, and what to do. */
export function describe(error) {
  if (!(error instanceof ApiError)) return `The server could not be reached (${error.message}).`;
  const wait = error.retryAfter ? waitWords(error.retryAfter) : "a little while";
  const code = error.problem?.code;
  if (code === "rate_limited" && /sign-ins/.test(error.message))
    return `Too many failed sign-ins with this name from here. Try again in ${wait}.`;
  if (code === "rate_limited") return `Too many requests at once. Try again in ${wait}.`;
  if (code === "service_busy") return `The server is busy. Try again in ${wait}.`;
  if (code === "invalid_credentials") return "Wrong username or password.";
  const said = plain(error.message);
  return said.charAt(0).toUpperCase() + said.slice(1);
}

/** Text with `code` marks turned to quotes. */
export function plain(text) {
  return text.replace(/`([^`]*)`/g, "“$1”");
}

function waitWords(seconds) {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

const SIDES = { white: "White", black: "Black" };

/** "White (alice)". */
function named(game, side) {
  return `${SIDES[side]} (${game[side].username})`;
}

/** How a finished game ended, in a sentence. */
export function resultWords(game) {
  if (game.status === "aborted" || game.termination === "aborted") return "Game aborted.";
  if (!game.result) return "";
  const winner = game.result === "1-0" ? "white" : game.result === "0-1" ? "black" : null;
  const loser = winner === "white" ? "black" : "white";
  const reason = game.termination;
  if (winner) {
    const won = `${named(game, winner)} won`;
    switch (reason) {
      case "checkmate":
        return `${won} by checkmate.`;
      case "resignation":
        return `${won}: ${SIDES[loser]} resigned.`;
      case "timeout":
        return `${won} on time: ${SIDES[loser]} ran out of time.`;
      case "goal_rank":
        return `${won}: the ${winner} king reached its goal rank.`;
      default:
        return `${won} (${words(reason)}).`;
    }
  }
  const draws = {
    agreement: "Draw agreed.",
    stalemate: "Draw by stalemate.",
    insufficient_material: "Draw: neither side has the material to mate.",
    threefold_repetition: "Draw claimed: the position stood three times.",
    fifty_moves: "Draw claimed: fifty moves without a capture or a pawn move.",
    fivefold_repetition: "Draw: the position stood five times.",
    seventy_five_moves: "Draw: seventy-five moves without a capture or a pawn move.",
    timeout: `Draw: ${SIDES[game.turn]} ran out of time, but the opponent cannot mate.`,
    adjudication: "Draw: adjudicated at the round's deadline.",
  };
  return draws[reason] ?? `Draw (${words(reason)}).`;
}

/** How a position ends a game, from the rules' outcome: "Black wins: checkmate." */
export function outcomeWords({ result, termination }) {
  const who = { "1-0": "White wins", "0-1": "Black wins" }[result] ?? "Draw";
  return `${who}: ${words(termination)}.`;
}

const START_KINDS = {
  standard: "usual array",
  chess960: "Chess960 array",
  shuffle: "Shuffle array",
  prechess: "Pre-chess placement",
  fen: "position from FEN",
};

export function startKindWords(kind) {
  return START_KINDS[kind] ?? kind;
}

/** "Chess960 array 421". */
export function startWords(start) {
  const name = startKindWords(start.kind);
  return start.id === undefined || start.id === null ? name : `${name} ${start.id}`;
}

export function timeLeft(deadline) {
  if (!deadline) return "no deadline";
  const seconds = Math.max(0, (new Date(deadline) - Date.now()) / 1000);
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h left`;
  if (hours > 0) return `${hours} h ${minutes} min left`;
  return `${minutes} min left`;
}

/** "1 day per move", "3 days per move". */
export function daysPerMoveWords(days) {
  return `${days} day${days === 1 ? "" : "s"} per move`;
}

/** A clock's kind in words: "10 moves in 50 days", "7 days + 1 a move, at most 14". */
export function clockWords(spec) {
  if (spec.kind === "control") return `${spec.moves} moves in ${spec.days} days`;
  return `${spec.initial_days} days + ${spec.increment_days} a move, at most ${spec.max_days}`;
}

/** A once-per-game right's name and each standing of a side with it, in words. */
export const RIGHT_WORDS = {
  teleport: { name: "teleport", held: "not used yet", spent: "used", after_placement: "comes once the placement is done" },
  leap: { name: "bunker leap", held: "not used yet", spent: "used or gone", after_placement: "comes with the array, once the placement is done" },
  captivity: { name: "king", held: "captive", spent: "free", after_placement: "captive once the placement is done" },
};

/** The marks the move list puts on special moves. */
export const KIND_MARKS = {
  teleport: "teleport",
  leap: "bunker leap",
  switch: "switch",
  placement: "placement",
  castling: "castling",
};

const capital = (text) => text[0].toUpperCase() + text.slice(1);

/**
 * A move in words, to choose between moves on the same squares: "Castle
 * h-side, O-O", "Bunker leap, Kg1", "Switch king and rook, Rf1e1".
 */
export function moveWords(move, board) {
  const unit = (square) => pieceName(board.get(square) ?? "");
  switch (move.kind) {
    case "castling": {
      const c = move.castling;
      const side = c.rook_from[0] > c.king_from[0] ? "h" : "a";
      return `Castle ${side}-side, ${move.san}`;
    }
    case "leap":
      return `Bunker leap, ${move.san}`;
    case "teleport":
      return `Teleport, ${move.san}`;
    case "switch":
      return `Switch ${unit(move.from)} and ${unit(move.to)}, ${move.san}`;
    case "placement":
      return `Place the ${pieceName(move.put)} on ${move.to}, ${move.san}`;
    default:
      if (move.promotion) return `Promote to ${pieceName(move.promotion)}, ${move.san}`;
      return `${capital(unit(move.from))} to ${move.to}, ${move.san}`;
  }
}
