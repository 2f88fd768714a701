// The analysis board: moves tried freely from a position, in any rule set,
// each step's legal moves the server's (the page keeps no rules), never
// sent as a move. The game's page can keep its line as a conditional line.

import { call } from "./api.js";
import { announce, h } from "./dom.js";
import { parseFen } from "./moves.js";
import { PickingBoard } from "./picking.js";
import { describe, outcomeWords } from "./words.js";

export class AnalysisBoard {
  /** From `fen` of rule set `rules`; `redraw` draws the page that holds it. */
  constructor({ rules, fen, flipped, signal, redraw }) {
    this.rules = rules;
    this.start = fen;
    this.flipped = flipped;
    this.signal = signal;
    this.redraw = redraw;
    this.line = []; // the moves tried, { uci, san }, from the start
    this.at = 0; // how many of them the board shows
    this.state = null; // the server's analysis of the position on show
    this.loading = false;
    this.picking = new PickingBoard("analysis", {
      onPick: (move) => this.play(move),
      canPick: () => !this.loading && this.state !== null,
      redraw,
    });
  }

  /** Shows the start: read before the board is drawn. */
  load() {
    return this.goTo(0);
  }

  /** A move picked: the line goes on from the position on show. */
  play(move) {
    this.line = [...this.line.slice(0, this.at), { uci: move.uci, san: move.san }];
    return this.goTo(this.at + 1);
  }

  /** Shows the position after the line's first `at` moves, as the server reads it. */
  async goTo(at) {
    if (at < 0 || at > this.line.length) return;
    this.loading = true;
    const moves = this.line.slice(0, at).map((m) => m.uci);
    try {
      const { body } = await call("POST", "/positions/analyze", {
        body: { rules: this.rules, fen: this.start, moves },
        signal: this.signal,
      });
      this.line.splice(0, at, ...body.line); // each move named as the server names it
      this.at = at;
      this.state = body;
      this.picking.setPosition(body.legal_moves, body.fen);
      if (body.outcome) announce(outcomeWords(body.outcome));
    } catch (error) {
      if (!this.signal.aborted) announce(describe(error));
    } finally {
      this.loading = false;
      if (!this.signal.aborted) this.redraw();
    }
  }

  /** The moves on show, from the start: what a conditional line would hold. */
  shownLine() {
    return this.line.slice(0, this.at);
  }

  /** The position on show, as the page's rights and holdings read it. */
  shown() {
    const { board, held, turn } = parseFen(this.state.fen);
    const { fen, check, rights } = this.state;
    return { board, held, turn, fen, check, rights, last: this.line[this.at - 1] };
  }

  /** The board and its controls, where the game's board stands. */
  column(close) {
    if (!this.state) return [h("p", { class: "analysis-banner" }, "Analysis board: setting up…")];
    const shown = this.shown();
    const top = this.flipped ? "white" : "black";
    const bottom = this.flipped ? "black" : "white";
    const button = (label, text, onclick, disabled = false) =>
      h("button", { type: "button", "aria-label": label, disabled: disabled || this.loading, onclick }, text);
    return [
      h("p", { class: "analysis-banner" }, "Analysis board: moves tried here are never sent."),
      this.picking.holdings(shown, top),
      this.picking.board(shown, this.flipped, { label: ", analysis", extraClass: "analysis" }),
      this.picking.holdings(shown, bottom),
      h(
        "div",
        { class: "stepper", role: "group", "aria-label": "Analysis controls" },
        button("Back to the start", "«", () => this.goTo(0), this.at === 0),
        button("Take back", "‹", () => this.goTo(this.at - 1), this.at === 0),
        h("span", { class: "ply" }, this.at === 0 ? "the start" : `after ${this.line[this.at - 1].san}`),
        button("Forward", "›", () => this.goTo(this.at + 1), this.at === this.line.length),
        button("Flip board", "Flip board", () => {
          this.flipped = !this.flipped;
          this.redraw();
        }),
        button("Close the analysis board", "Close analysis", close),
      ),
    ];
  }

  /** The line tried, each move a step back to it; `extra` below it. */
  lineSection(extra = null) {
    const turnOf = lineNumbering(this.start);
    const entry = (move, i) =>
      h(
        "button",
        {
          type: "button",
          class: `san${this.at === i + 1 ? " current" : ""}`,
          "data-analysis-ply": i + 1,
          disabled: this.loading,
          onclick: () => this.goTo(i + 1),
        },
        move.san,
      );
    const rows = [];
    this.line.forEach((move, i) => {
      const { number, white } = turnOf(i);
      if (white) rows.push(h("li", { value: number }, entry(move, i)));
      else if (rows.length === 0) rows.push(h("li", { value: number }, "… ", entry(move, i)));
      else rows.at(-1).append(" ", entry(move, i));
    });
    return h(
      "section",
      { class: "analysis-line", "aria-labelledby": "analysis-title" },
      h("h3", { id: "analysis-title" }, "Analysis line"),
      rows.length
        ? h("ol", { class: "moves" }, rows)
        : h("p", {}, "Pick moves on the board to try them: both sides' moves, in turn."),
      extra,
    );
  }
}

/** The move number and side of the line's move `i`, from a FEN's turn and number fields. */
export function lineNumbering(fen) {
  const [, side, , , , full] = fen.split(" ");
  const first = side === "b" ? 1 : 0;
  return (i) => ({ number: Number(full || 1) + Math.floor((i + first) / 2), white: (i + first) % 2 === 0 });
}
