// A game's page: the board, picking and confirming a move, the move list
// with each position a click away, the variant's rights, the actions of
// correspondence play (draws, resignation, conditional moves), the
// players' messages, all followed live.

import { ApiError, act, call, listen, session } from "./api.js";
import { AnalysisBoard } from "./analysis.js";
import { clockText, sideClocks } from "./clocks.js";
import { announce, h, main, show } from "./dom.js";
import { colorOf, parseFen, withPlayed } from "./moves.js";
import { pieceName } from "./pieces.js";
import { PickingBoard } from "./picking.js";
import { botMark, changeWords, profileLink, ratingWords } from "./players.js";
import { rulesLink } from "./rules.js";
import { variantWords } from "./variants.js";
import {
  KIND_MARKS,
  RIGHT_WORDS,
  clockWords,
  daysPerMoveWords,
  describe,
  moveWords,
  resultWords,
  startWords,
  words,
} from "./words.js";

/** Whether moves wait for a confirmation: on unless the player turned it off. */
const confirmSetting = {
  key: "kingpost.confirm-moves",
  get() {
    return localStorage.getItem(this.key) !== "off";
  },
  set(on) {
    localStorage.setItem(this.key, on ? "on" : "off");
  },
};

const SIDES = { white: "White", black: "Black" };

export class GameView {
  constructor(id, signal, onChange) {
    this.id = id;
    this.me = session.get().username;
    this.signal = signal;
    this.onChange = onChange; // the page's "your move" count
    this.picking = new PickingBoard("game", {
      onPick: (move) => this.pick(move),
      canPick: () => this.myTurn() && this.viewPly === null,
      // Beginning another move forgets one awaiting confirmation.
      redraw: () => ((this.pending = null), this.render()),
    });
    this.pending = null; // a move picked, awaiting confirmation
    this.analysis = null; // the analysis board, while open
    this.viewPly = null; // the ply shown when stepping back, or null
    this.history = null; // the positions of the game, read when needed
    this.flipped = null; // the player's choice, over the default
    this.conditionals = null;
    this.conditionalsRead = 0; // reads of the lines begun, and saves
    this.answered = null; // the opponent's move and the stored reply, when a line fired
    this.loading = 0; // reads under way besides the game's own
    this.typed = ""; // a move being typed: kept when the page redraws
    this.messages = null; // the players' conversation, read when the viewer plays
    this.draft = ""; // a message being written: kept when the page redraws
  }

  /** Runs a read the page waits for, counting it while under way. */
  async loadWhile(read) {
    this.loading += 1;
    try {
      await read();
    } finally {
      this.loading -= 1;
      if (!this.signal.aborted && this.loading === 0) this.render();
    }
  }

  async load() {
    await this.reload();
    // The clocks count down between reads of the game.
    const ticking = setInterval(() => this.tickClocks(), 1000);
    this.signal.addEventListener("abort", () => clearInterval(ticking));
    this.watch();
    if (this.myColor()) {
      this.loadMessages();
      listen(this.signal, (event) => this.hear(event));
    }
  }

  /** Reads the game's messages: the players' alone. */
  loadMessages() {
    return this.loadWhile(async () => {
      try {
        const { body } = await call("GET", `/games/${this.id}/messages?limit=200`, {
          signal: this.signal,
        });
        this.messages = body.messages;
      } catch (error) {
        if (!this.signal.aborted) announce(describe(error));
      }
    });
  }

  /** An event of the account: the opponent's messages in this game are shown as they come. */
  hear(event) {
    if (event.type !== "message_received" || event.game_id !== this.id || !this.messages) return;
    const message = event.data.message;
    if (this.messages.some((m) => m.id === message.id)) return;
    this.messages.push(message);
    announce(`${message.from} says: ${message.text}`);
    this.render();
  }

  /** Long-polls the game: the server answers when it changes. */
  async watch() {
    while (!this.signal.aborted) {
      try {
        const answer = await call("GET", `/games/${this.id}?wait=60`, {
          headers: this.etag ? { "If-None-Match": this.etag } : {},
          signal: this.signal,
        });
        if (answer.status === 200) {
          const before = this.game;
          this.etag = answer.headers.get("ETag");
          this.update(answer.body);
          this.tell(before, answer.body);
        }
      } catch (error) {
        if (this.signal.aborted) return;
        announce(`${describe(error)} Trying again shortly.`);
        await new Promise((resolve) => setTimeout(resolve, 5000));
      }
    }
  }

  /** Says what changed: the opponent's move, the end, a draw offer. */
  tell(before, after) {
    if (after.status !== "started" && before.status === "started") {
      announce(resultWords(after));
      return;
    }
    const last = after.moves.at(-1);
    if (this.answered) {
      const [theirs, reply] = this.answered;
      announce(`Your conditional line answered ${theirs} with ${reply}.`);
    } else if (after.ply > before.ply && last) announce(`${this.sideName(last.ply)} played ${last.san}.`);
    else if (after.draw_offer && !before.draw_offer && after.draw_offer !== this.myColor())
      announce(`${SIDES[after.draw_offer]} offers a draw.`);
  }

  /** A player's name, linked to the profile, with the rating the game began with and its change. */
  playerTitle(side) {
    const rating = this.game.ratings?.[side];
    const parts = [profileLink(this.game[side].username)];
    if (this.game[side].bot) parts.push(" ", botMark());
    if (rating) {
      const change = rating.change === null ? "" : ` ${changeWords(rating.change)}`;
      parts.push(h("span", { class: "rating" }, ` (${ratingWords(rating)}${change})`));
    }
    return h("span", {}, ...parts);
  }

  sideName(ply) {
    return ply % 2 === 1 ? "White" : "Black";
  }

  myColor() {
    if (this.game.white.username === this.me) return "white";
    if (this.game.black.username === this.me) return "black";
    return null;
  }

  update(game) {
    if (this.signal.aborted) return;
    const moved = this.game?.ply !== game.ply;
    // The opponent moved and a stored line answered at once: the page
    // learns both moves together (`tell` says so).
    const before = this.game;
    this.answered =
      before && this.conditionals?.length && before.turn !== this.myColor() && game.ply === before.ply + 2
        ? game.moves.slice(-2).map((m) => m.san)
        : null;
    const turnChanged = moved || this.game?.status !== game.status;
    this.game = game;
    this.readAt = Date.now();
    this.picking.setPosition(game.legal_moves, game.fen);
    this.pending = null;
    if (moved) {
      this.typed = "";
      this.viewPly = null;
      this.history = null;
      this.loadHistory();
      this.loadConditionals();
    }
    this.render();
    if (turnChanged) this.onChange?.();
  }

  /** Reads the positions of the game: for stepping and for move marks. */
  loadHistory() {
    const ply = this.game.ply;
    return this.loadWhile(async () => {
      try {
        const { body } = await call("GET", `/games/${this.id}/positions`, { signal: this.signal });
        if (this.game.ply === ply) this.history = body.positions;
      } catch (error) {
        if (!this.signal.aborted) announce(describe(error));
      }
    });
  }

  /** Reads the player's conditional moves while the opponent is to move. */
  loadConditionals() {
    this.conditionals = null;
    if (!this.myColor() || this.game.status !== "started" || this.myTurn()) return;
    // A read that a save overtakes is dropped: the save's lines are newer.
    const read = ++this.conditionalsRead;
    return this.loadWhile(async () => {
      try {
        const { body } = await call("GET", `/games/${this.id}/conditionals`, { signal: this.signal });
        if (read === this.conditionalsRead) this.conditionals = body.san;
      } catch (error) {
        if (!this.signal.aborted) announce(describe(error));
      }
    });
  }

  myTurn() {
    return Boolean(this.game.actions?.[this.myColor()]?.move);
  }

  /** A move picked: played at once, or shown for confirmation. */
  pick(move) {
    this.picking.selected = null;
    if (confirmSetting.get()) {
      this.pending = move;
      this.render();
      main.querySelector(".confirm button")?.focus();
    } else {
      this.play(move);
    }
  }

  async play(move) {
    this.picking.selected = null;
    this.pending = null;
    try {
      const { body } = await act(`/games/${this.id}/moves`, { move: move.uci, ply: this.game.ply });
      announce(`You played ${move.san}.`);
      this.update(withPlayed(this.game, body));
    } catch (error) {
      announce(describe(error));
      // A stale ply or a move that crossed the opponent's: show the game as it is.
      if (error instanceof ApiError && error.status === 409) await this.reload();
      else this.render();
    }
  }

  async reload() {
    const answer = await call("GET", `/games/${this.id}`, { signal: this.signal });
    this.etag = answer.headers.get("ETag");
    this.update(answer.body);
  }

  async action(path, done, method = "POST", body = undefined) {
    try {
      const answer = method === "POST" ? await act(path, body) : await call(method, path, { body });
      announce(done);
      if (answer.body?.id === this.id) this.update(answer.body);
      else await this.reload();
    } catch (error) {
      announce(describe(error));
    }
  }

  // -- drawing --

  /** The position on show: the current one, or one stepped back to. */
  shown() {
    if (this.viewPly === null || !this.history) {
      const { board, held } = this.picking.position;
      return {
        board,
        held,
        fen: this.game.fen,
        check: this.game.check,
        rights: this.game.rights,
        turn: this.game.turn,
        last: this.game.moves.at(-1),
      };
    }
    const at = this.history[this.viewPly];
    const { board, held, turn } = parseFen(at.fen);
    return { board, held, fen: at.fen, check: at.check, rights: at.rights, turn, last: at.move };
  }

  render() {
    const game = this.game;
    const mine = this.myColor();
    const flipped = this.flipped ?? mine === "black";
    const analysis = this.analysis?.state ? this.analysis : null;
    const shown = analysis ? analysis.shown() : this.shown();
    // Keep the keyboard on the board across a redraw, but never pull it
    // away from elsewhere (the move entry) when the opponent's move arrives.
    const onBoard = [this.picking, this.analysis?.picking].find((board) => board?.hasFocus());
    // A move or a message being typed keeps its text and the keyboard
    // across a redraw.
    const typing = document.activeElement?.name;
    show(
      h(
        "section",
        {
          class: "game",
          "aria-labelledby": "game-title",
          // Set while reads that redraw the page are under way.
          "data-loading": this.loading > 0,
        },
        h(
          "h2",
          { id: "game-title" },
          `${variantWords(game)}: `,
          this.playerTitle("white"),
          " – ",
          this.playerTitle("black"),
        ),
        h(
          "p",
          { class: "start" },
          `${startWords(game.start)}, ${game.clock ? clockWords(game.clock.spec) : daysPerMoveWords(game.days_per_move)}, ${game.rated ? "rated" : "casual"}. `,
          rulesLink(game.rules),
        ),
        h("p", { class: "state", "aria-live": "polite" }, this.stateLine()),
        h(
          "div",
          { class: "play" },
          h(
            "div",
            { class: "board-column" },
            this.clock(flipped ? "white" : "black"),
            analysis ? analysis.column(() => this.closeAnalysis()) : this.gameBoard(shown, flipped),
            this.clock(flipped ? "black" : "white"),
          ),
          h(
            "div",
            { class: "side-column" },
            analysis ? analysis.lineSection(this.keepLine()) : null,
            this.rights(shown),
            this.moveList(),
            this.actions(),
            this.conditionalMoves(),
            this.messagePanel(),
          ),
        ),
      ),
    );
    this.tickClocks();
    onBoard?.restoreFocus();
    if (typing === "move" || typing === "message")
      main.querySelector(`[name="${typing}"]`)?.focus();
  }

  /** The game's board, its holdings, and what goes with playing on it. */
  gameBoard(shown, flipped) {
    const live = this.viewPly === null;
    const label = live ? "" : `, after ply ${this.viewPly}`;
    return [
      this.picking.holdings(shown, flipped ? "white" : "black", { live }),
      this.picking.board(shown, flipped, { live, label }),
      this.picking.holdings(shown, flipped ? "black" : "white", { live }),
      this.confirmation(),
      this.stepper(),
      this.moveEntry(),
    ];
  }

  /** Opens the analysis board on the position on show. */
  async openAnalysis() {
    this.pending = null;
    this.picking.selected = null;
    this.analysis = new AnalysisBoard({
      rules: this.game.rules,
      fen: this.shown().fen,
      flipped: this.flipped ?? this.myColor() === "black",
      signal: this.signal,
      redraw: () => this.render(),
    });
    await this.analysis.load();
    main.querySelector(".analysis-banner")?.scrollIntoView({ block: "nearest" });
  }

  closeAnalysis() {
    this.analysis = null;
    this.render();
  }

  /**
   * "Keep as a conditional line", while the opponent is to move and the
   * analysis began at the game's position: the line tried is their move,
   * the reply, and so on.
   */
  keepLine() {
    if (this.conditionals === null || this.analysis.start !== this.game.fen) return null;
    const line = this.analysis.shownLine().map((m) => m.san);
    const ready = line.length >= 2 && line.length % 2 === 0;
    return h(
      "div",
      { class: "keep-line" },
      h(
        "button",
        {
          type: "button",
          disabled: !ready,
          onclick: () => this.saveConditionals([...this.conditionals, line], `Conditional line kept: ${lineWords(line)}`),
        },
        "Keep as a conditional line",
      ),
      ready ? null : h("p", { class: "hint" }, "A conditional line begins with their move and ends with your reply."),
    );
  }

  /** The clocks as they stand now. */
  clocksNow() {
    return sideClocks(this.game, (Date.now() - this.readAt) / 1000);
  }

  /** A side's clock by its player's name, on its side of the board. */
  clock(side) {
    const clocks = this.clocksNow();
    if (!clocks) return null;
    return h(
      "div",
      { class: "clock-row" },
      h("span", { class: "clock-name" }, `${SIDES[side]}: ${this.game[side].username}`),
      h("span", { role: "timer", "aria-label": `${SIDES[side]}'s clock`, "data-side": side }),
    );
  }

  /** Sets the clocks' figures and looks: after a render, and each second. */
  tickClocks() {
    const clocks = this.game && this.clocksNow();
    if (!clocks) return;
    for (const side of ["white", "black"]) {
      const shown = main.querySelector(`[role=timer][data-side=${side}]`);
      if (!shown) continue;
      const { seconds, running, vacation, urgent } = clocks[side];
      shown.textContent = vacation ? `${clockText(seconds)}, on vacation` : clockText(seconds);
      shown.className = ["clock", running && "running", urgent && "urgent", vacation && "vacation"].filter(Boolean).join(" ");
    }
  }

  stateLine() {
    const game = this.game;
    if (game.status !== "started") return resultWords(game);
    const side = SIDES[game.turn];
    const who = game.turn === this.myColor() ? "your move" : `${game[game.turn].username} to move`;
    const parts = [`${side} to move (${who})`];
    if (game.check) parts.push("check");
    // The time left is on the clocks by the board.
    if (game.deadline) parts.push(`deadline ${new Date(game.deadline).toLocaleString()}`);
    const n = game.clock?.moves_to_control;
    if (n) parts.push(`${n} move${n === 1 ? "" : "s"} to the control`);
    for (const color of ["white", "black"])
      if (game[color].on_vacation)
        parts.push(
          game.vacation_allowed === false
            ? `${game[color].username} is on vacation, but this tournament's clocks do not stop for it`
            : `${game[color].username} is on vacation`,
        );
    if (game.draw_offer) parts.push(`${SIDES[game.draw_offer]} offers a draw`);
    return `${parts.join("; ")}.`;
  }

  /** The move picked, to confirm or cancel. */
  confirmation() {
    if (!this.pending) return null;
    const move = this.pending;
    return h(
      "div",
      { class: "confirm", role: "group", "aria-label": "Confirm the move" },
      h("span", {}, `Play ${moveWords(move, this.picking.position.board)}?`),
      h("button", { type: "button", class: "primary", onclick: () => this.play(move) }, "Confirm move"),
      h("button", { type: "button", onclick: () => ((this.pending = null), this.render()) }, "Cancel"),
    );
  }

  /** Steps through the positions of the game, and turns the board. */
  stepper() {
    const total = this.game.ply;
    const at = this.viewPly ?? total;
    const go = (ply) => {
      if (!this.history) return;
      this.viewPly = ply >= total ? null : Math.max(0, ply);
      this.picking.selected = null;
      this.pending = null;
      this.render();
    };
    const button = (label, text, ply, disabled) =>
      h("button", { type: "button", "aria-label": label, disabled, onclick: () => go(ply) }, text);
    const waiting = !this.history;
    return h(
      "div",
      { class: "stepper", role: "group", "aria-label": "Step through the game" },
      button("First position", "«", 0, waiting || at === 0),
      button("Previous move", "‹", at - 1, waiting || at === 0),
      h("span", { class: "ply" }, this.viewPly === null ? "current position" : `after ply ${at} of ${total}`),
      button("Next move", "›", at + 1, waiting || at === total),
      button("Current position", "»", total, waiting || at === total),
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            this.flipped = !(this.flipped ?? this.myColor() === "black");
            this.render();
          },
        },
        "Flip board",
      ),
      h("button", { type: "button", onclick: () => this.openAnalysis() }, "Analysis board"),
    );
  }

  /** What the rule set adds to the position: its once-per-game right (as the server gives it) and the units still to place. */
  rights(shown) {
    const right = shown.rights;
    const items = [];
    for (const color of ["white", "black"]) {
      const side = SIDES[color];
      if (right) {
        const said = RIGHT_WORDS[right.right];
        items.push(`${side}'s ${said.name}: ${said[right[color]]}.`);
      }
      const held = [...shown.held].filter((c) => colorOf(c) === color);
      if (held.length) items.push(`${side} still places: ${held.map(pieceName).join(", ")}.`);
    }
    if (items.length === 0) return null;
    return h(
      "section",
      { class: "rights", "aria-labelledby": "rights-title" },
      h("h3", { id: "rights-title" }, "Rights"),
      right ? h("p", {}, right.summary) : null,
      h(
        "ul",
        {},
        items.map((text) => h("li", {}, text)),
      ),
    );
  }

  /** A move typed as SAN or UCI, for keyboards and screen readers. */
  moveEntry() {
    if (!this.myTurn() || this.viewPly !== null) return null;
    const list = h(
      "datalist",
      { id: "legal-moves" },
      this.picking.picker.moves.map((m) => h("option", { value: m.san })),
    );
    const input = h("input", {
      name: "move",
      list: "legal-moves",
      autocomplete: "off",
      spellcheck: "false",
      value: this.typed || null,
      oninput: (event) => (this.typed = event.target.value),
    });
    return h(
      "form",
      {
        class: "move-entry",
        "aria-label": "Type a move",
        onsubmit: (event) => {
          event.preventDefault();
          const text = input.value.trim();
          const move = this.picking.picker.moves.find((m) => m.san === text || m.uci === text);
          if (move) {
            this.typed = "";
            this.pick(move);
          } else announce(`“${text}” is not a legal move here.`);
        },
      },
      h("label", {}, "Move", input),
      list,
      h("button", { type: "submit" }, "Play"),
    );
  }

  /** The moves, each a button that shows the position after it. */
  moveList() {
    const kinds = new Map((this.history ?? []).filter((p) => p.move).map((p) => [p.ply, p.move.kind]));
    const entry = (move) => {
      const mark = KIND_MARKS[kinds.get(move.ply)];
      return h(
        "button",
        {
          type: "button",
          class: `san${this.viewPly === move.ply ? " current" : ""}`,
          "data-ply": move.ply,
          disabled: !this.history,
          onclick: () => {
            this.viewPly = move.ply === this.game.ply ? null : move.ply;
            this.render();
          },
        },
        move.san,
        mark ? h("span", { class: "mark", "data-kind": kinds.get(move.ply) }, ` ${mark}`) : null,
      );
    };
    const rows = [];
    for (const move of this.game.moves) {
      const number = Math.ceil(move.ply / 2);
      if (move.ply % 2 === 1) rows.push(h("li", { value: number }, entry(move)));
      else if (rows.length === 0) rows.push(h("li", { value: number }, "… ", entry(move)));
      else rows.at(-1).append(" ", entry(move));
    }
    return h(
      "section",
      { "aria-labelledby": "moves-title" },
      h("h3", { id: "moves-title" }, "Moves"),
      rows.length ? h("ol", { class: "moves" }, rows) : h("p", {}, "No moves yet."),
    );
  }

  actions() {
    const game = this.game;
    const base = `/games/${this.id}`;
    const button = (label, onclick) => h("button", { type: "button", onclick }, label);
    const buttons = [];
    const mine = this.myColor();
    // What the player may do is the server's to say.
    const may = game.actions?.[mine] ?? {};
    if (may.resign)
      buttons.push(
        button("Resign", () => {
          if (confirm("Resign this game?")) this.action(`${base}/resign`, "You resigned.");
        }),
      );
    if (may.offer_draw)
      buttons.push(button("Offer a draw", () => this.action(`${base}/draw-offer`, "Draw offered.")));
    if (may.withdraw_draw)
      buttons.push(
        button("Withdraw the draw offer", () =>
          this.action(`${base}/draw-offer`, "Draw offer withdrawn.", "DELETE"),
        ),
      );
    if (may.answer_draw) {
      buttons.push(button("Accept the draw", () => this.action(`${base}/draw-offer/accept`, "Draw agreed.")));
      buttons.push(button("Decline the draw", () => this.action(`${base}/draw-offer/decline`, "Draw declined.")));
    }
    if (may.claim_draw)
      buttons.push(
        button(`Claim a draw (${words(game.claimable_draw)})`, () =>
          this.action(`${base}/claim-draw`, "Draw claimed."),
        ),
      );
    if (may.abort) buttons.push(button("Abort", () => this.action(`${base}/abort`, "Game aborted.")));
    const confirmBox = h("input", {
      type: "checkbox",
      checked: confirmSetting.get(),
      onchange: (event) => confirmSetting.set(event.target.checked),
    });
    const copy = (label, text, done) =>
      button(label, async () => {
        try {
          await navigator.clipboard.writeText(await text());
          announce(done);
        } catch (error) {
          announce(`Could not copy: ${error.message}`);
        }
      });
    return h(
      "div",
      { class: "actions" },
      buttons,
      h("label", { class: "setting" }, confirmBox, "Confirm each move before it is sent"),
      h(
        "div",
        { class: "copy" },
        copy("Copy FEN", () => this.shown().fen, "FEN copied."),
        copy(
          "Copy PGN",
          async () => (await fetch(`/api/v1${base}/pgn`, { signal: this.signal })).text(),
          "PGN copied.",
        ),
        h("a", { href: `/api/v1${base}/pgn`, download: `kingpost-${this.id}.pgn` }, "Download PGN"),
      ),
      game.status === "started" ? null : h("a", { href: `#/study/${this.id}` }, "Study and annotate this game"),
      mine ? button("Next game to move", () => this.nextToMove()) : null,
      mine && game.status !== "started" ? button("Rematch", () => this.rematch()) : null,
      h("a", { href: "#/" }, "Back to your games"),
    );
  }

  /** Opens the player's next game awaiting a move, soonest deadline first. */
  async nextToMove() {
    try {
      const { body } = await call("GET", "/games", { signal: this.signal });
      const next = body.games.find((g) => g.my_turn && g.id !== this.id);
      if (next) location.hash = `#/games/${next.id}`;
      else announce("No other game awaits your move.");
    } catch (error) {
      if (!this.signal.aborted) announce(describe(error));
    }
  }

  /** Challenges the opponent to the same game again, colours reversed. */
  async rematch() {
    const game = this.game;
    const mine = this.myColor();
    const other = mine === "white" ? "black" : "white";
    // A drawn array (Chess960, Shuffle) is drawn again; a FEN is kept.
    const start = game.start.kind === "fen" ? { kind: "fen", fen: game.initial_fen } : { kind: game.start.kind };
    const time = game.clock ? { clock: game.clock.spec } : { days_per_move: game.days_per_move };
    try {
      await act("/challenges", {
        rules: game.rules,
        start,
        color: other,
        opponent: game[other].username,
        rated: game.rated,
        ...time,
      });
      announce("Rematch offered.");
    } catch (error) {
      announce(describe(error));
    }
  }

  /** The players' messages, oldest first, and one to send. */
  messagePanel() {
    if (this.messages === null) return null;
    const text = h("textarea", {
      name: "message",
      rows: 2,
      maxlength: 500,
      "aria-label": "Message to your opponent",
    });
    text.value = this.draft;
    text.addEventListener("input", () => (this.draft = text.value));
    const send = async (event) => {
      event.preventDefault();
      if (!text.value.trim()) return;
      try {
        const { body } = await act(`/games/${this.id}/messages`, { text: text.value });
        this.messages.push(body);
        this.draft = "";
        announce("Message sent.");
        this.render();
      } catch (error) {
        announce(describe(error));
      }
    };
    const list = this.messages.length
      ? h(
          "ol",
          { class: "message-list" },
          ...this.messages.map((m) =>
            h("li", { class: m.from === this.me ? "mine" : "theirs" }, h("strong", {}, m.from), `: ${m.text}`),
          ),
        )
      : h("p", {}, "No messages yet. Only the two of you read them.");
    return h(
      "section",
      { class: "messages", "aria-labelledby": "messages-title" },
      h("h3", { id: "messages-title" }, "Messages"),
      list,
      h("form", { onsubmit: send }, text, h("button", { type: "submit" }, "Send")),
    );
  }

  /** Stores `lines` (SAN) as the player's conditional moves: all of them, or none. */
  async saveConditionals(lines, done) {
    const base = `/games/${this.id}/conditionals`;
    try {
      const { body } = lines.length
        ? await call("PUT", base, { body: { lines } })
        : { body: (await call("DELETE", base), { lines: [], san: [] }) };
      this.conditionalsRead += 1;
      this.conditionals = body.san;
      announce(done);
      this.render();
    } catch (error) {
      announce(describe(error));
    }
  }

  /** Lines "if they play X, I reply Y", stored while the opponent is to move. */
  conditionalMoves() {
    if (this.conditionals === null || !this.myColor() || this.myTurn()) return null;
    const lines = this.conditionals;
    const remove = (i) =>
      this.saveConditionals(
        lines.filter((_, j) => j !== i),
        "Conditional line removed.",
      );
    const text = h("textarea", {
      name: "conditionals",
      rows: 3,
      spellcheck: "false",
      placeholder: "e5 Nf3 Nc6 Bb5",
    });
    text.value = lines.map((line) => line.join(" ")).join("\n");
    const saveText = (event) => {
      event.preventDefault();
      const typed = text.value
        .split("\n")
        .map((line) => line.trim().split(/\s+/).filter(Boolean))
        .filter((line) => line.length);
      this.saveConditionals(typed, typed.length ? "Conditional moves saved." : "Conditional moves deleted.");
    };
    return h(
      "section",
      { class: "conditionals", "aria-labelledby": "conditionals-title" },
      h("h3", { id: "conditionals-title" }, "Conditional moves"),
      lines.length
        ? h(
            "ul",
            { class: "conditional-lines" },
            lines.map((line, i) =>
              h(
                "li",
                {},
                h("span", {}, lineWords(line)),
                h("button", { type: "button", "aria-label": `Remove the line ${line.join(" ")}`, onclick: () => remove(i) }, "Remove"),
              ),
            ),
          )
        : h(
            "p",
            {},
            "None. Try their move and your reply on the analysis board, then keep the line: when they play it, your reply is played at once.",
          ),
      h(
        "details",
        {},
        h("summary", {}, "Type the lines"),
        h(
          "form",
          { "aria-label": "Conditional moves as text", onsubmit: saveText },
          h("p", {}, "One line each: their move, your reply, their next move, your reply…"),
          h("label", {}, "Lines", text),
          h("button", { type: "submit" }, "Save conditional moves"),
        ),
      ),
    );
  }
}

/** A conditional line in words: "if e5, Nf3; then if Nc6, Bb5". */
function lineWords(line) {
  const pairs = [];
  for (let i = 0; i + 1 < line.length; i += 2) pairs.push(`if ${line[i]}, ${line[i + 1]}`);
  return pairs.join("; then ");
}
