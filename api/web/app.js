// The kingpost web client: a page that plays correspondence games through
// the public API alone (see api.js), with no chess rules of its own.

import { ApiError, act, call, followEvents, session, signIn, signOut, signUp } from "./api.js";
import { FILES, Picker, colorOf, parseFen, withPlayed } from "./moves.js";
import { pieceName, pieceSvg } from "./pieces.js";

const main = document.getElementById("main");
const status = document.getElementById("status");

/** Builds an element: `h("a", { href: "#/" }, "text", child)`. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** Says `text` to screen readers and shows it in the status line. */
function announce(text) {
  status.textContent = text;
}

function describe(error) {
  if (error instanceof ApiError) return error.message;
  return `The server could not be reached (${error.message}).`;
}

/** Runs a button's action, showing what went wrong instead of failing. */
async function attempt(action) {
  try {
    await action();
  } catch (error) {
    announce(describe(error));
  }
}

// ---- routing: #/ is the lobby, #/games/{id} a game ----

// Each visit of a page has its own signal, aborted when the next begins:
// its requests stop and its late answers draw nothing.
let visit = new AbortController();
let visits = 0;

async function route() {
  visit.abort();
  visit = new AbortController();
  visits += 1;
  const signal = visit.signal;
  // The old view stays in sight, greyed and inert, until the new one is drawn.
  main.setAttribute("aria-busy", "true");
  renderHeader();
  const game = location.hash.match(/^#\/games\/([A-Za-z0-9_-]+)$/);
  try {
    if (!session.get()) showSignIn();
    else if (game) await new GameView(game[1], signal).load();
    else await showLobby(signal);
  } catch (error) {
    if (signal.aborted) return;
    if (error instanceof ApiError && error.status === 401) {
      signOut();
      return route();
    }
    show(h("p", { class: "error", role: "alert" }, describe(error)));
  }
}

function renderHeader() {
  const who = document.getElementById("who");
  const current = session.get();
  who.replaceChildren(
    current
      ? h(
          "span",
          {},
          `Signed in as ${current.username} `,
          h("button", { type: "button", onclick: () => (signOut(), route()) }, "Sign out"),
        )
      : "",
  );
}

function show(...sections) {
  main.replaceChildren(...sections);
  main.setAttribute("aria-busy", "false");
  main.dataset.visit = visits;
}

// ---- signing in ----

function showSignIn() {
  show(
    h("p", { class: "intro" }, "Correspondence chess and four variants, one move per day or week."),
    h(
      "div",
      { class: "auth" },
      authForm("Sign in", "current-password", signIn),
      authForm("Create account", "new-password", signUp),
    ),
  );
}

function authForm(title, passwordKind, action) {
  const username = h("input", { name: "username", autocomplete: "username", required: true });
  const password = h("input", {
    name: "password",
    type: "password",
    autocomplete: passwordKind,
    required: true,
  });
  const error = h("p", { class: "error", role: "alert" });
  return h(
    "form",
    {
      "aria-label": title,
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await action(username.value, password.value);
          await route(); // to the page asked for, or the lobby
        } catch (e) {
          error.textContent = describe(e);
        }
      },
    },
    h("h2", {}, title),
    h("label", {}, "Username", username),
    h("label", {}, "Password", password),
    h("button", { type: "submit" }, title),
    error,
  );
}

// ---- the lobby: games and challenges ----

async function showLobby(signal) {
  const variants = await call("GET", "/variants", { auth: false, signal });
  const lists = h("div", { class: "lists" });
  const refresh = () => refreshLists(lists, signal).catch(() => {});
  // Challenges and moves arrive as events: each refreshes the lists (not
  // the form, which may be half filled in). The lists are read once the
  // stream is open, so that nothing falls between the two; a stream that
  // does not open in a few seconds leaves the lists without live updates.
  const open = new Promise((resolve) => followEvents(signal, refresh, resolve));
  await Promise.race([open, new Promise((resolve) => setTimeout(resolve, 5000))]);
  await refreshLists(lists, signal);
  show(lists, challengeForm(variants.body.variants));
}

async function refreshLists(lists, signal) {
  const [ongoing, finished, challenges] = await Promise.all([
    call("GET", "/games", { signal }),
    call("GET", "/games?status=finished&limit=20", { signal }),
    call("GET", "/challenges", { signal }),
  ]);
  const me = session.get().username;
  // Your move first, each group soonest deadline first (the server's order).
  const games = [...ongoing.body.games].sort((a, b) => Number(b.my_turn) - Number(a.my_turn));
  lists.replaceChildren(
    h(
      "section",
      { "aria-labelledby": "games-title" },
      h("h2", { id: "games-title" }, `Your games (${ongoing.body.my_turn_count} to move)`),
      gameList(games, me, "No games in progress: challenge someone below."),
    ),
    challengeSection(challenges.body, me, () => refreshLists(lists, signal)),
    h(
      "section",
      { "aria-labelledby": "finished-title" },
      h("h2", { id: "finished-title" }, "Finished games"),
      gameList(finished.body.games, me, "None yet."),
    ),
  );
}

function gameList(games, me, empty) {
  if (games.length === 0) return h("p", {}, empty);
  return h(
    "ul",
    { class: "games" },
    games.map((game) => {
      const opponent = game.white.username === me ? game.black.username : game.white.username;
      let state;
      if (game.result) state = `${game.result}, ${words(game.termination)}`;
      else if (game.my_turn) state = `Your move, ${timeLeft(game.deadline)}`;
      else state = `${opponent} to move`;
      return h(
        "li",
        { class: game.my_turn ? "my-turn" : "" },
        h("a", { href: `#/games/${game.id}` }, `${game.variant} against ${opponent}`),
        h("span", { class: "state" }, state),
      );
    }),
  );
}

function challengeSection(list, me, refresh) {
  const row = (challenge, ...buttons) =>
    h(
      "li",
      {},
      h(
        "span",
        {},
        `${challenge.variant} (${startWords(challenge.start)}), ${challenge.days_per_move} days per move, `,
        challenge.challenger.username === me
          ? `to ${challenge.opponent?.username ?? "anyone"}`
          : `from ${challenge.challenger.username}`,
        `, challenger plays ${challenge.color}`,
      ),
      ...buttons,
    );
  const button = (label, action) =>
    h("button", { type: "button", onclick: () => attempt(action) }, label);
  const accept = (c) =>
    button("Accept", async () => {
      const { body } = await act(`/challenges/${c.id}/accept`);
      location.hash = `#/games/${body.id}`;
    });
  const decline = (c) => button("Decline", () => act(`/challenges/${c.id}/decline`).then(refresh));
  const cancel = (c) => button("Cancel", () => call("DELETE", `/challenges/${c.id}`).then(refresh));
  const items = [
    ...list.incoming.map((c) => row(c, accept(c), decline(c))),
    ...list.outgoing.map((c) => row(c, cancel(c))),
    ...list.open.map((c) => row(c, accept(c))),
  ];
  return h(
    "section",
    { "aria-labelledby": "challenges-title" },
    h("h2", { id: "challenges-title" }, "Challenges"),
    items.length ? h("ul", { class: "challenges" }, items) : h("p", {}, "No open challenges."),
  );
}

const START_KINDS = {
  standard: "usual array",
  chess960: "Chess960 array",
  shuffle: "Shuffle array",
  prechess: "Pre-chess placement",
  fen: "position from FEN",
};

function startWords(start) {
  const name = START_KINDS[start.kind] ?? start.kind;
  return start.id === undefined || start.id === null ? name : `${name} ${start.id}`;
}

function challengeForm(variants) {
  const rules = h(
    "select",
    { name: "rules" },
    variants.map((v) => h("option", { value: v.key }, v.name)),
  );
  const start = h("select", { name: "start" });
  const startId = h("input", { name: "start-id", type: "number", min: 0, placeholder: "random" });
  const fen = h("input", { name: "fen", placeholder: "extended FEN", spellcheck: "false" });
  const idField = h("label", {}, "Array number", startId);
  const fenField = h("label", {}, "FEN", fen);
  const notation = h("p", { class: "notation" });
  const syncStarts = () => {
    const variant = variants.find((v) => v.key === rules.value);
    start.replaceChildren(
      ...variant.starts.map((s) => h("option", { value: s }, START_KINDS[s] ?? s)),
    );
    notation.textContent = variant.notation;
    syncFields();
  };
  const syncFields = () => {
    idField.hidden = !["chess960", "shuffle"].includes(start.value);
    fenField.hidden = start.value !== "fen";
  };
  rules.addEventListener("change", syncStarts);
  start.addEventListener("change", syncFields);
  const days = h(
    "select",
    { name: "days" },
    [1, 2, 3, 5, 7, 10, 14].map((d) => h("option", { value: d, selected: d === 3 }, `${d}`)),
  );
  const color = h(
    "select",
    { name: "color" },
    ["random", "white", "black"].map((c) => h("option", { value: c }, c)),
  );
  const opponent = h("input", { name: "opponent", placeholder: "anyone", autocomplete: "off" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    {
      "aria-label": "New challenge",
      onsubmit: async (event) => {
        event.preventDefault();
        const spec = { kind: start.value };
        if (!idField.hidden && startId.value !== "") spec.id = Number(startId.value);
        if (!fenField.hidden) spec.fen = fen.value;
        const body = {
          rules: rules.value,
          start: spec,
          days_per_move: Number(days.value),
          color: color.value,
        };
        if (opponent.value.trim()) body.opponent = opponent.value.trim();
        try {
          await act("/challenges", body);
          announce("Challenge sent.");
          await route();
        } catch (e) {
          error.textContent = describe(e);
        }
      },
    },
    h("h2", {}, "New challenge"),
    h("label", {}, "Rules", rules),
    notation,
    h("label", {}, "Start", start),
    idField,
    fenField,
    h("label", {}, "Days per move", days),
    h("label", {}, "Your colour", color),
    h("label", {}, "Opponent", opponent),
    h("button", { type: "submit" }, "Send challenge"),
    error,
  );
  syncStarts();
  return h("section", {}, form);
}

// ---- a game ----

class GameView {
  constructor(id, signal) {
    this.id = id;
    this.me = session.get().username;
    this.signal = signal;
    this.selected = null; // a square, or `{ unit }` from the holdings
    this.focus = null; // the square that has the board's keyboard focus
  }

  async load() {
    await this.reload();
    this.watch();
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
          const before = this.game.ply;
          this.etag = answer.headers.get("ETag");
          this.update(answer.body);
          const last = answer.body.moves.at(-1);
          if (answer.body.ply > before && last)
            announce(`${this.sideName(last.ply)} played ${last.san}.`);
        }
      } catch (error) {
        if (this.signal.aborted) return;
        announce(`${describe(error)} Trying again shortly.`);
        await new Promise((resolve) => setTimeout(resolve, 5000));
      }
    }
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
    this.game = game;
    this.picker = new Picker(game.legal_moves, game.fen);
    this.position = parseFen(game.fen);
    this.selected = null;
    this.render();
  }

  myTurn() {
    return this.game.status === "started" && this.game.turn === this.myColor();
  }

  async play(move) {
    this.selected = null;
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

  async action(path, done, method = "POST") {
    await attempt(async () => {
      const { body } = method === "POST" ? await act(path) : await call(method, path);
      announce(done);
      if (body?.id === this.id) this.update(body);
      else await this.reload();
    });
  }

  // -- picking a move: squares and held units --

  pickSquare(square) {
    if (!this.myTurn()) return;
    const chosen = this.selected;
    if (chosen?.unit) {
      const move = this.picker.placements(chosen.unit).find((m) => m.to === square);
      if (move) return this.play(move);
    } else if (chosen && chosen !== square) {
      const moves = this.picker.between(chosen, square);
      if (moves.length === 1) return this.play(moves[0]);
      if (moves.length > 1) return this.choose(moves);
    }
    this.selected = chosen !== square && this.picker.startsOn(square) ? square : null;
    this.render();
  }

  pickUnit(unit) {
    if (!this.myTurn()) return;
    this.selected = this.selected?.unit === unit ? null : { unit };
    this.render();
  }

  /** Several moves share the squares picked (the promotion choice). */
  choose(moves) {
    const dialog = h(
      "dialog",
      { class: "choice", "aria-label": "Choose the move" },
      h("p", {}, "Which move?"),
      moves.map((m) =>
        h(
          "button",
          { type: "button", "aria-label": m.san, onclick: () => (dialog.close(), this.play(m)) },
          m.promotion ? pieceSvg(m.promotion, this.game.turn) : null,
          m.san,
        ),
      ),
      h("button", { type: "button", onclick: () => (dialog.close(), this.render()) }, "Cancel"),
    );
    main.append(dialog);
    dialog.showModal();
  }

  // -- drawing --

  render() {
    const game = this.game;
    const mine = this.myColor();
    // Keep the keyboard on the board across a redraw, but never pull it
    // away from elsewhere (the move entry) when the opponent's move arrives.
    const onBoard = document.activeElement?.dataset?.square !== undefined;
    show(
      h(
        "section",
        { class: "game", "aria-labelledby": "game-title" },
        h(
          "h2",
          { id: "game-title" },
          `${game.variant}: ${game.white.username} – ${game.black.username}`,
        ),
        h("p", { class: "state", "aria-live": "polite" }, this.stateLine()),
        h(
          "div",
          { class: "play" },
          h(
            "div",
            { class: "board-column" },
            this.holdings(mine === "white" ? "black" : "white"),
            this.board(mine === "black"),
            this.holdings(mine === "black" ? "black" : "white"),
            this.moveEntry(),
          ),
          h("div", { class: "side-column" }, this.moveList(), this.actions()),
        ),
      ),
    );
    if (onBoard && this.focus) main.querySelector(`[data-square="${this.focus}"]`)?.focus();
  }

  stateLine() {
    const game = this.game;
    if (game.status !== "started") {
      return game.result
        ? `${game.result}, ${words(game.termination)}.`
        : `${words(game.termination)}.`;
    }
    const side = game.turn === "white" ? "White" : "Black";
    const who = game.turn === this.myColor() ? "your move" : `${game[game.turn].username} to move`;
    const parts = [`${side} to move (${who})`];
    if (game.check) parts.push("check");
    if (game.deadline)
      parts.push(
        `${timeLeft(game.deadline)}, deadline ${new Date(game.deadline).toLocaleString()}`,
      );
    if (game.draw_offer)
      parts.push(`${game.draw_offer === "white" ? "White" : "Black"} offers a draw`);
    return `${parts.join("; ")}.`;
  }

  board(flipped) {
    const { board } = this.position;
    const last = this.game.moves.at(-1);
    const lastSquares =
      last && last.uci[1] !== "@" ? [last.uci.slice(0, 2), last.uci.slice(2, 4)] : [];
    const placedOn = last && last.uci[1] === "@" ? [last.uci.slice(2, 4)] : [];
    const targets =
      this.selected?.unit !== undefined
        ? new Set(this.picker.placements(this.selected.unit).map((m) => m.to))
        : this.selected
          ? this.picker.targets(this.selected)
          : new Set();
    const ranks = flipped ? [1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1];
    const files = flipped ? [...FILES].reverse() : [...FILES];
    const order = ranks.flatMap((rank) => files.map((file) => file + rank));
    const focus = order.includes(this.focus) ? this.focus : order[0];
    const squares = order.map((square, index) => {
      const unit = board.get(square);
      const dark = (FILES.indexOf(square[0]) + Number(square[1])) % 2 === 0;
      const label = [square, unit ? `${colorOf(unit)} ${pieceName(unit)}` : "empty"];
      if (square === this.selected) label.push("selected");
      if (targets.has(square)) label.push("move here");
      return h(
        "button",
        {
          type: "button",
          class: [
            "square",
            dark ? "dark" : "light",
            square === this.selected && "selected",
            targets.has(square) && "target",
            (lastSquares.includes(square) || placedOn.includes(square)) && "last",
          ]
            .filter(Boolean)
            .join(" "),
          "data-square": square,
          "aria-label": label.join(", "),
          tabindex: square === focus ? "0" : "-1",
          onclick: () => {
            this.focus = square;
            this.pickSquare(square);
          },
          onkeydown: (event) => this.arrowKey(event, order, index),
        },
        unit ? pieceSvg(unit, colorOf(unit)) : null,
        // Coordinates along the left and bottom edges, for sighted players.
        index % 8 === 0 ? h("span", { class: "rank", "aria-hidden": "true" }, square[1]) : null,
        index >= 56 ? h("span", { class: "file", "aria-hidden": "true" }, square[0]) : null,
      );
    });
    return h(
      "div",
      {
        class: "board",
        role: "group",
        "aria-label": `Board, ${flipped ? "Black" : "White"} at the bottom; arrow keys move between squares`,
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
    this.focus = order[next];
    main.querySelectorAll(".square").forEach((el) => el.setAttribute("tabindex", "-1"));
    const el = main.querySelector(`[data-square="${this.focus}"]`);
    el.setAttribute("tabindex", "0");
    el.focus();
  }

  /** The units a side still has to place (Pre-chess), as buttons. */
  holdings(color) {
    const held = [...this.position.held].filter((c) => colorOf(c) === color);
    if (held.length === 0) return null;
    const placeable = color === this.game.turn ? this.picker.placeable() : new Set();
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
            disabled: !placeable.has(unit.toUpperCase()) || !this.myTurn(),
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

  /** A move typed as SAN or UCI, for keyboards and screen readers. */
  moveEntry() {
    if (!this.myTurn()) return null;
    const list = h(
      "datalist",
      { id: "legal-moves" },
      this.picker.moves.map((m) => h("option", { value: m.san })),
    );
    const input = h("input", {
      name: "move",
      list: "legal-moves",
      autocomplete: "off",
      spellcheck: "false",
    });
    return h(
      "form",
      {
        class: "move-entry",
        "aria-label": "Type a move",
        onsubmit: (event) => {
          event.preventDefault();
          const text = input.value.trim();
          const move = this.picker.moves.find((m) => m.san === text || m.uci === text);
          if (move) this.play(move);
          else announce(`${text} is not a legal move here.`);
        },
      },
      h("label", {}, "Move", input),
      list,
      h("button", { type: "submit" }, "Play"),
    );
  }

  moveList() {
    const rows = [];
    for (const move of this.game.moves) {
      if (move.ply % 2 === 1) rows.push(h("li", {}, h("span", { class: "san" }, move.san)));
      else if (rows.length === 0)
        rows.push(
          h("li", {}, h("span", { class: "san" }, "…"), " ", h("span", { class: "san" }, move.san)),
        );
      else rows.at(-1).append(" ", h("span", { class: "san" }, move.san));
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
    if (game.status === "started" && mine) {
      buttons.push(
        button("Resign", () => {
          if (confirm("Resign this game?")) this.action(`${base}/resign`, "You resigned.");
        }),
      );
      if (!game.draw_offer)
        buttons.push(
          button("Offer a draw", () => this.action(`${base}/draw-offer`, "Draw offered.")),
        );
      else if (game.draw_offer === mine)
        buttons.push(
          button("Withdraw the draw offer", () =>
            this.action(`${base}/draw-offer`, "Draw offer withdrawn.", "DELETE"),
          ),
        );
      else {
        buttons.push(
          button("Accept the draw", () => this.action(`${base}/draw-offer/accept`, "Draw agreed.")),
        );
        buttons.push(
          button("Decline the draw", () =>
            this.action(`${base}/draw-offer/decline`, "Draw declined."),
          ),
        );
      }
      if (game.claimable_draw && this.myTurn())
        buttons.push(
          button(`Claim a draw (${words(game.claimable_draw)})`, () =>
            this.action(`${base}/claim-draw`, "Draw claimed."),
          ),
        );
      if (game.ply < 2)
        buttons.push(button("Abort", () => this.action(`${base}/abort`, "Game aborted.")));
    }
    return h(
      "div",
      { class: "actions" },
      buttons,
      h("a", { href: `/api/v1${base}/pgn`, download: `kingpost-${this.id}.pgn` }, "Download PGN"),
      h("a", { href: "#/" }, "Back to your games"),
    );
  }
}

// ---- wording ----

function words(code) {
  return code ? code.replaceAll("_", " ") : "";
}

function timeLeft(deadline) {
  if (!deadline) return "no deadline";
  const seconds = Math.max(0, (new Date(deadline) - Date.now()) / 1000);
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h left`;
  if (hours > 0) return `${hours} h ${minutes} min left`;
  return `${minutes} min left`;
}

window.addEventListener("hashchange", route);
if (!location.hash) history.replaceState(null, "", "#/");
route();
