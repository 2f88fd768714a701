// Drawing a board: the game's, with buttons for picking squares, and the
// small diagrams of the rules pages.

import { h } from "./dom.js";
import { colorOf, isDark, kingSquare, parseFen, squareOrder } from "./moves.js";
import { pieceName, pieceSvg } from "./pieces.js";

/**
 * The squares of a board as elements. `marks` maps a square to the class
 * names it carries (selected, target, last, check, mark); `cell` makes the
 * element of a square (a button for play, a span for a diagram).
 */
export function drawSquares(board, flipped, marks, cell) {
  return squareOrder(flipped).map((square, index) => {
    const unit = board.get(square);
    const classes = ["square", isDark(square) ? "dark" : "light", ...(marks.get(square) ?? [])];
    const label = [square, unit ? `${colorOf(unit)} ${pieceName(unit)}` : "empty"];
    return cell(square, index, {
      class: classes.join(" "),
      "data-square": square,
      label,
      children: [
        unit ? pieceSvg(unit, colorOf(unit)) : null,
        // Coordinates along the left and bottom edges, for sighted players.
        index % 8 === 0 ? h("span", { class: "rank", "aria-hidden": "true" }, square[1]) : null,
        index >= 56 ? h("span", { class: "file", "aria-hidden": "true" }, square[0]) : null,
      ],
    });
  });
}

/** A diagram of a FEN, the squares in `marked` outlined. */
export function diagram(fen, marked = [], caption = "") {
  const { board, held } = parseFen(fen);
  const marks = new Map(marked.map((square) => [square, ["mark"]]));
  const squares = drawSquares(board, false, marks, (square, index, cell) =>
    h("span", { class: cell.class, "data-square": square, role: "img", "aria-label": cell.label.join(", ") }, ...cell.children),
  );
  return h(
    "figure",
    { class: "diagram" },
    h("div", { class: "board small", role: "group", "aria-label": `Diagram: ${caption || fen}` }, squares),
    held ? h("p", { class: "held" }, `To place: ${heldWords(held)}.`) : null,
    caption ? h("figcaption", {}, caption) : null,
  );
}

/** "White: king, queen...; Black: ..." of the units still to place. */
function heldWords(held) {
  return ["white", "black"]
    .map((color) => {
      const units = [...held].filter((c) => colorOf(c) === color).map(pieceName);
      return units.length ? `${color === "white" ? "White" : "Black"}: ${units.join(", ")}` : null;
    })
    .filter(Boolean)
    .join("; ");
}

/** A board to look at (the study pages, the lobby's games): the last move
 * and a check marked, from Black's side when `flipped`. */
export function miniBoard(fen, { last = null, check = false, flipped = false } = {}) {
  const { board, turn } = parseFen(fen);
  const marks = new Map();
  if (last) {
    const squares = last[1] === "@" ? [last.slice(2, 4)] : [last.slice(0, 2), last.slice(2, 4)];
    for (const square of squares) marks.set(square, ["last"]);
  }
  const king = check ? kingSquare(board, turn) : null;
  if (king) marks.set(king, [...(marks.get(king) ?? []), "check"]);
  return drawSquares(board, flipped, marks, (square, index, cell) =>
    h("span", { class: cell.class, "data-square": square, role: "img", "aria-label": cell.label.join(", ") }, ...cell.children),
  );
}
