// Picking a move on a board: squares and held units as buttons, the
// squares a begun move may end on marked, a question in words when the
// squares picked make more than one move. The game's board and the
// analysis board both pick through it; what a picked move does is theirs.

import { drawSquares } from "./board.js";
import { h, main } from "./dom.js";
import { Picker, colorOf, kingSquare, parseFen, squareOrder } from "./moves.js";
import { pieceName, pieceSvg } from "./pieces.js";
import { moveWords } from "./words.js";

export class PickingBoard {
  /**
   * `name` tells this board's squares from another board's; `onPick` is
   * given each move picked; `canPick` says whether a move may be begun now;
   * `redraw` draws the page again.
   */
  constructor(name, { onPick, canPick, redraw }) {
    this.name = name;
    this.onPick = onPick;
    this.canPick = canPick;
    this.redraw = redraw;
    this.selected = null; // a square, or `{ unit }` from the holdings
    this.focus = null; // the square that has the board's keyboard focus
    this.picker = null;
    this.position = null;
  }

  /** A position to pick in, with the server's legal moves of it. */
  setPosition(legalMoves, fen) {
    this.picker = new Picker(legalMoves, fen);
    this.position = parseFen(fen);
    this.selected = null;
  }

  pick(move) {
    this.selected = null;
    this.onPick(move);
  }

  pickSquare(square) {
    if (!this.canPick()) return;
    const chosen = this.selected;
    if (chosen?.unit) {
      const move = this.picker.placements(chosen.unit).find((m) => m.to === square);
      if (move) return this.pick(move);
    } else if (chosen && chosen !== square) {
      const moves = this.picker.between(chosen, square);
      if (moves.length === 1) return this.pick(moves[0]);
      if (moves.length > 1) return this.choose(moves);
    }
    this.selected = chosen !== square && this.picker.startsOn(square) ? square : null;
    this.redraw();
  }

  pickUnit(unit) {
    if (!this.canPick()) return;
    this.selected = this.selected?.unit === unit ? null : { unit };
    this.redraw();
  }

  /** Several moves share the squares picked: the page asks, in words. */
  choose(moves) {
    const dialog = h(
      "dialog",
      { class: "choice", "aria-label": "Choose the move" },
      h("p", {}, "These squares make more than one move. Which do you mean?"),
      moves.map((m) =>
        h(
          "button",
          { type: "button", onclick: () => (dialog.close(), this.pick(m)) },
          m.promotion ? pieceSvg(m.promotion, this.position.turn) : null,
          moveWords(m, this.position.board),
        ),
      ),
      h("button", { type: "button", onclick: () => (dialog.close(), (this.selected = null), this.redraw()) }, "Cancel"),
    );
    main.append(dialog);
    dialog.showModal();
  }

  /** Whether the keyboard is on one of this board's squares. */
  hasFocus() {
    return Boolean(document.activeElement?.closest?.(`[data-board="${this.name}"]`));
  }

  /** Gives the keyboard back to the square that had it, after a redraw. */
  restoreFocus() {
    if (this.focus) main.querySelector(`[data-board="${this.name}"] [data-square="${this.focus}"]`)?.focus();
  }

  /**
   * The board of `shown` (board, turn, check, last move), its squares
   * buttons. `live` says that it is the position moves are picked in;
   * `label` ends the board's name for screen readers.
   */
  board(shown, flipped, { live = true, label = "", extraClass = "" } = {}) {
    const marks = new Map();
    const mark = (square, name) => marks.set(square, [...(marks.get(square) ?? []), name]);
    const last = shown.last?.uci;
    if (last) {
      if (last[1] === "@") mark(last.slice(2, 4), "last");
      else for (const square of [last.slice(0, 2), last.slice(2, 4)]) mark(square, "last");
    }
    if (shown.check) {
      const king = kingSquare(shown.board, shown.turn);
      if (king) mark(king, "check");
    }
    let targets = new Set();
    if (live && this.selected?.unit !== undefined)
      targets = new Set(this.picker.placements(this.selected.unit).map((m) => m.to));
    else if (live && this.selected) targets = this.picker.targets(this.selected);
    for (const square of targets) mark(square, "target");
    if (live && typeof this.selected === "string") mark(this.selected, "selected");
    const order = squareOrder(flipped);
    const focus = order.includes(this.focus) ? this.focus : order[0];
    const squares = drawSquares(shown.board, flipped, marks, (square, index, cell) => {
      const words = [...cell.label];
      const classes = marks.get(square) ?? [];
      if (classes.includes("selected")) words.push("selected");
      if (classes.includes("target")) words.push("move here");
      if (classes.includes("check")) words.push("in check");
      return h(
        "button",
        {
          type: "button",
          class: cell.class,
          "data-square": square,
          "aria-label": words.join(", "),
          tabindex: square === focus ? "0" : "-1",
          onclick: () => {
            this.focus = square;
            if (live) this.pickSquare(square);
          },
          onkeydown: (event) => this.arrowKey(event, order, index),
        },
        ...cell.children,
      );
    });
    return h(
      "div",
      {
        class: ["board", live ? "" : "past", extraClass].filter(Boolean).join(" "),
        role: "group",
        "data-board": this.name,
        "aria-label": `Board, ${flipped ? "Black" : "White"} at the bottom${label}; arrow keys move between squares`,
      },
      squares,
    );
  }

  /** Arrow keys move the focus across the board, as on a grid. */
  arrowKey(event, order, index) {
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -8, ArrowDown: 8 }[event.key];
    if (step === undefined) return;
    const next = index + step;
    const sameRow = Math.abs(step) === 8 || Math.floor(next / 8) === Math.floor(index / 8);
    if (next < 0 || next > 63 || !sameRow) return;
    event.preventDefault();
    event.stopPropagation(); // the page's own arrow keys step through moves
    this.focus = order[next];
    const board = event.currentTarget.closest(".board");
    board.querySelectorAll(".square").forEach((el) => el.setAttribute("tabindex", "-1"));
    const el = board.querySelector(`[data-square="${this.focus}"]`);
    el.setAttribute("tabindex", "0");
    el.focus();
  }

  /** The units a side still has to place (Pre-chess), as buttons. */
  holdings(shown, color, { live = true } = {}) {
    const held = [...shown.held].filter((c) => colorOf(c) === color);
    if (held.length === 0) return null;
    const canPick = live && color === shown.turn && this.canPick();
    const placeable = canPick ? this.picker.placeable() : new Set();
    const counts = new Map();
    for (const c of held) counts.set(c, (counts.get(c) ?? 0) + 1);
    return h(
      "div",
      { class: "holdings", role: "group", "aria-label": `${color} units to place` },
      [...counts].map(([unit, count]) =>
        h(
          "button",
          {
            type: "button",
            class: this.selected?.unit === unit ? "selected" : "",
            disabled: !placeable.has(unit.toUpperCase()),
            "data-unit": unit,
            "aria-label": `place ${color} ${pieceName(unit)}${count > 1 ? ` (${count} left)` : ""}`,
            onclick: () => this.pickUnit(unit),
          },
          pieceSvg(unit, color),
          count > 1 ? h("span", { class: "count" }, `${count}`) : null,
        ),
      ),
    );
  }
}
