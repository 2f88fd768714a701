// The study archive: one's collections and imports into them, search by
// position (with the explorer) and by data, and a viewer of a game with its
// variations and comments. Every position comes from the server.

import { AnalysisBoard, lineNumbering } from "./analysis.js";
import { call, downloadPgn, importPgn, session } from "./api.js";
import { miniBoard } from "./board.js";
import { announce, h, show } from "./dom.js";
import { explorerShares } from "./explorer.js";
import { variantWords, variants } from "./variants.js";
import { describe } from "./words.js";

// ---- collections ----

/** The caller's collections, a form to make one and a form to import. */
export async function collectionsPage(signal) {
  const { body } = await call("GET", "/collections", { signal });
  const list = body.collections.length
    ? h(
        "ul",
        { class: "collections" },
        body.collections.map((c) =>
          h(
            "li",
            {},
            h("a", { href: `#/collections/${c.id}` }, c.name),
            h("span", { class: "count" }, `${c.games} game${c.games === 1 ? "" : "s"}`),
            h("span", { class: "visibility" }, c.visibility),
          ),
        ),
      )
    : h("p", {}, "No collections yet: import a PGN file below.");
  show(
    h(
      "section",
      { "aria-labelledby": "collections-title" },
      h("h2", { id: "collections-title" }, "Your collections"),
      list,
    ),
    importForm(body.collections),
  );
}

/** A PGN file or pasted text, imported into a collection named or new. */
function importForm(collections, into = null) {
  const name = h("input", {
    name: "collection",
    list: "collection-names",
    required: true,
    value: into ?? "Imported games",
  });
  const names = h(
    "datalist",
    { id: "collection-names" },
    collections.map((c) => h("option", { value: c.name })),
  );
  const file = h("input", { name: "file", type: "file", accept: ".pgn,application/x-chess-pgn" });
  const text = h("textarea", { name: "pgn", rows: 6, spellcheck: "false" });
  const report = h("div", { class: "report", "aria-live": "polite" });
  const button = h("button", { type: "submit" }, "Import");
  return h(
    "form",
    {
      class: "import",
      "aria-label": "Import PGN",
      onsubmit: async (event) => {
        event.preventDefault();
        const pgn = file.files[0] ? await file.files[0].text() : text.value;
        if (!pgn.trim()) return announce("Choose a PGN file or paste its text.");
        // One request: the server's work is not told as it goes, so the
        // page says what it sent and for how long it has waited.
        const size = `${Math.max(1, Math.round(new Blob([pgn]).size / 1024))} KB`;
        const started = Date.now();
        const waited = h("span", {}, "");
        const tick = () => (waited.textContent = ` ${Math.round((Date.now() - started) / 1000)} s`);
        tick();
        const clock = setInterval(tick, 1000);
        button.disabled = true;
        report.replaceChildren(
          h("p", { class: "importing" }, h("progress", { "aria-label": "Importing" }), ` Importing ${size} of PGN…`, waited),
        );
        try {
          const done = await importPgn(pgn, name.value.trim());
          report.replaceChildren(importReport(done));
          announce(`${done.imported} games imported.`);
        } catch (error) {
          report.replaceChildren(h("p", { class: "error", role: "alert" }, describe(error)));
        } finally {
          clearInterval(clock);
          button.disabled = false;
        }
      },
    },
    h("h2", {}, "Import PGN"),
    h("label", {}, "Into the collection", name),
    names,
    h("label", {}, "A PGN file", file),
    h("label", {}, "Or its text", text),
    button,
    report,
  );
}

function importReport(done) {
  const problems = done.games.filter((g) => g.error || g.warnings.length);
  return h(
    "div",
    {},
    h(
      "p",
      {},
      `${done.read} read: ${done.imported} imported, ${done.duplicates} already there, ` +
        `${done.shortened} shortened, ${done.rejected} refused. `,
      done.collection_id ? h("a", { href: `#/collections/${done.collection_id}` }, "Open the collection") : null,
    ),
    problems.length
      ? h(
          "ul",
          { class: "problems" },
          problems.slice(0, 20).map((g) =>
            h(
              "li",
              {},
              `Game ${g.index}: `,
              g.error ? `refused (${g.error.reason})` : g.warnings.join("; "),
            ),
          ),
        )
      : null,
  );
}

/** One collection: its games a page at a time, and its owner's controls. */
export async function collectionPage(id, signal) {
  const [{ body: view }, { body: first }] = await Promise.all([
    call("GET", `/collections/${id}`, { signal }),
    call("GET", `/collections/${id}/games?limit=50`, { signal }),
  ]);
  const games = h("ul", { class: "archive" });
  const more = h("button", { type: "button" }, "More games");
  const add = (page) => {
    games.append(...page.games.map((game) => archiveEntry(game)));
    more.hidden = !page.next_cursor;
    more.onclick = async () => add((await call("GET", `/collections/${id}/games?limit=50&cursor=${page.next_cursor}`)).body);
  };
  add(first);
  const mine = view.owner.username === session.get()?.username;
  show(
    h(
      "section",
      { "aria-labelledby": "collection-title" },
      h("h2", { id: "collection-title" }, view.name),
      h("p", {}, `${view.games} games, ${view.visibility}, by ${view.owner.username}. `,
        h("a", { href: "#/collections" }, "All your collections")),
      h(
        "p",
        {},
        h("button", { type: "button", onclick: () => download(`/collections/${id}/games.pgn`, `${view.name}.pgn`) },
          "Download PGN"),
      ),
      games.children.length ? games : h("p", {}, "No games in it."),
      more,
    ),
    mine ? ownerControls(view) : null,
  );
}

async function download(path, name) {
  try {
    await downloadPgn(path, name);
  } catch (error) {
    announce(describe(error));
  }
}

function ownerControls(view) {
  const name = h("input", { name: "name", value: view.name, required: true });
  const visible = h("input", { name: "public", type: "checkbox", checked: view.visibility === "public" });
  const save = async (event) => {
    event.preventDefault();
    try {
      await call("PATCH", `/collections/${view.id}`, {
        body: { name: name.value.trim(), visibility: visible.checked ? "public" : "private" },
      });
      announce("Collection saved.");
      redraw();
    } catch (error) {
      announce(describe(error));
    }
  };
  const remove = async () => {
    if (!confirm(`Delete “${view.name}” and the games only it holds?`)) return;
    try {
      await call("DELETE", `/collections/${view.id}`);
      announce("Collection deleted.");
      location.hash = "#/collections";
    } catch (error) {
      announce(describe(error));
    }
  };
  return h(
    "form",
    { class: "collection-settings", "aria-label": "Collection settings", onsubmit: save },
    h("h2", {}, "Settings"),
    h("label", {}, "Name", name),
    h("label", { class: "setting" }, visible, "Public: anyone may read it and find its games"),
    h("button", { type: "submit" }, "Save"),
    h("button", { type: "button", class: "danger", onclick: remove }, "Delete the collection"),
  );
}

/** A game of the archive, as a link to its viewer. */
function archiveEntry(game, ply = null) {
  const opening = game.opening ? `, ${game.opening.eco} ${game.opening.name}` : "";
  return h(
    "li",
    {},
    h("a", { href: `#/study/${game.id}` }, `${game.white.username} – ${game.black.username}`),
    h("span", { class: "result" }, game.result ?? "*"),
    h("span", { class: "start" }, `${variantWords(game)}, ${game.moves.length} plies${opening}`),
    ply === null ? null : h("span", { class: "ply" }, `at ply ${ply}`),
  );
}

// ---- search ----

/** The search page: a position (its explorer and games), or games by data. */
export async function searchPage(query, signal) {
  const asked = new URLSearchParams(query ?? "");
  const sections = [positionForm(asked), dataForm(asked)];
  if (asked.get("by") === "position") sections.push(...(await positionResults(asked, signal)));
  if (asked.get("by") === "data") sections.push(await dataResults(asked, signal));
  show(...sections);
}

/** The query string of the fields of `form` that hold something. */
function queryOf(form, by) {
  const query = new URLSearchParams({ by });
  for (const [name, value] of new FormData(form)) if (String(value).trim()) query.set(name, String(value).trim());
  return query;
}

function field(label, name, asked, attrs = {}) {
  return h("label", {}, label, h("input", { name, value: asked.get(name) ?? "", ...attrs }));
}

function scopeField(asked) {
  const own = h("input", { name: "own", type: "checkbox", value: "true", checked: asked.get("own") === "true" });
  return h("label", { class: "setting" }, own, "Only my own games and collections");
}

function positionForm(asked) {
  const rules = h(
    "select",
    { name: "rules" },
    variants().map((v) => h("option", { value: v.key, selected: asked.get("rules") === v.key }, v.title)),
  );
  return h(
    "form",
    {
      class: "search",
      "aria-label": "Search by position",
      onsubmit: (event) => {
        event.preventDefault();
        const query = queryOf(event.target, "position");
        if (!query.has("moves") && !query.has("fen")) query.set("moves", "");
        location.hash = `#/search?${query}`;
      },
    },
    h("h2", {}, "Search by position"),
    h("label", {}, "Rules", rules),
    field("Moves from the start", "moves", asked, { placeholder: "e4 e5 Nf3", spellcheck: "false" }),
    field("Or a FEN", "fen", asked, { spellcheck: "false" }),
    scopeField(asked),
    h("button", { type: "submit" }, "Search"),
  );
}

function dataForm(asked) {
  return h(
    "form",
    {
      class: "search",
      "aria-label": "Search by player and opening",
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/search?${queryOf(event.target, "data")}`;
      },
    },
    h("h2", {}, "Search by player and opening"),
    field("Player", "player", asked),
    field("Opponent", "opponent", asked),
    field("ECO code", "eco", asked, { placeholder: "B90" }),
    field("Opening", "opening", asked, { placeholder: "Najdorf" }),
    field("Played since", "since", asked, { placeholder: "2026-01-01" }),
    scopeField(asked),
    h("button", { type: "submit" }, "Search"),
  );
}

/** The query of a position search as the API reads it. */
function positionQuery(asked) {
  const query = new URLSearchParams({ rules: asked.get("rules") ?? "standard" });
  if (asked.get("fen")) query.set("fen", asked.get("fen"));
  else query.set("moves", asked.get("moves") ?? "");
  if (asked.get("own")) query.set("own", "true");
  return query;
}

async function positionResults(asked, signal) {
  const query = positionQuery(asked);
  const [{ body: explorer }, { body: found }] = await Promise.all([
    call("GET", `/explorer?${query}`, { signal }),
    call("GET", `/search/positions?${query}`, { signal }),
  ]);
  const next = (san) => {
    const moves = [asked.get("moves"), san].filter(Boolean).join(" ");
    const deeper = new URLSearchParams(asked);
    deeper.set("moves", moves);
    deeper.delete("fen");
    return `#/search?${deeper}`;
  };
  const table = explorer.moves.length
    ? h(
        "table",
        { class: "explorer" },
        h(
          "thead",
          {},
          h("tr", {}, ["Move", "Games", "Share", "White", "Draws", "Black", "Results"].map((t) => h("th", { scope: "col" }, t))),
        ),
        h(
          "tbody",
          {},
          explorer.moves.map((m) => {
            const shares = explorerShares(m, explorer.games);
            return h(
              "tr",
              {},
              h("th", { scope: "row" }, asked.get("fen") ? m.san : h("a", { href: next(m.san) }, m.san)),
              h("td", {}, String(m.games)),
              h("td", {}, `${shares.share}%`),
              h("td", {}, `${shares.white}%`),
              h("td", {}, `${shares.draws}%`),
              h("td", {}, `${shares.black}%`),
              h("td", { "aria-hidden": "true" }, resultBar(shares)),
            );
          }),
        ),
      )
    : h("p", {}, "No game went on from this position.");
  return [
    h(
      "section",
      { "aria-labelledby": "explorer-title" },
      h("h2", { id: "explorer-title" }, `Explorer: ${explorer.games} game${explorer.games === 1 ? "" : "s"}`),
      h("div", { class: "board small" }, miniBoard(explorer.fen)),
      table,
    ),
    h(
      "section",
      { "aria-labelledby": "found-title" },
      h("h2", { id: "found-title" }, "Games that reached it"),
      found.games.length
        ? pagedList(found, (cursor) => call("GET", `/search/positions?${withCursor(query, cursor)}`, { signal }),
            (hit) => archiveEntry(hit.game, hit.ply))
        : h("p", {}, "None."),
      found.games.length
        ? h("button", { type: "button", onclick: () => download(`/search/positions.pgn?${query}`, "positions.pgn") },
            "Download them as PGN")
        : null,
    ),
  ];
}

async function dataResults(asked, signal) {
  const query = new URLSearchParams(asked);
  query.delete("by");
  const { body } = await call("GET", `/search/games?${query}`, { signal });
  return h(
    "section",
    { "aria-labelledby": "found-title" },
    h("h2", { id: "found-title" }, "Games found"),
    body.spellings.length ? h("p", { class: "spellings" }, `Names found: ${body.spellings.join("; ")}.`) : null,
    body.games.length
      ? pagedList(body, (cursor) => call("GET", `/search/games?${withCursor(query, cursor)}`, { signal }), (g) => archiveEntry(g))
      : h("p", {}, "None."),
    body.games.length
      ? h("button", { type: "button", onclick: () => download(`/search/games.pgn?${query}`, "games.pgn") },
          "Download them as PGN")
      : null,
  );
}

/** The bar of a move's results: White's, the draws' and Black's shares. */
function resultBar({ white, draws, black }) {
  return h(
    "span",
    { class: "results" },
    [["white", white], ["draws", draws], ["black", black]].map(([side, share]) => {
      const part = h("span", { class: side });
      // Through the style object: the page's policy refuses style attributes.
      part.style.width = `${share}%`;
      return part;
    }),
  );
}

/** `query` with `cursor` set: the page after the one that gave it. */
function withCursor(query, cursor) {
  const next = new URLSearchParams(query);
  next.set("cursor", cursor);
  return next;
}

/** A list of the first page's games, and a button that adds the next page
 * (`more(cursor)`) under them while there is one. */
function pagedList(first, more, entry) {
  const list = h("ul", { class: "archive" }, first.games.map(entry));
  let cursor = first.next_cursor;
  const button = h("button", { type: "button", class: "more" }, "More games");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const { body } = await more(cursor);
      list.append(...body.games.map(entry));
      cursor = body.next_cursor;
      announce(`${body.games.length} more games.`);
    } catch (error) {
      announce(describe(error));
    } finally {
      button.disabled = false;
      button.hidden = !cursor;
    }
  });
  button.hidden = !cursor;
  return h("div", { class: "paged" }, list, button);
}

// ---- the viewer ----

// The PGN standard's glyphs of the NAGs in common use; others show as `$n`.
const NAG_GLYPHS = {
  1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!", 7: "□", 10: "=", 11: "=", 12: "=", 13: "∞",
  14: "⩲", 15: "⩱", 16: "±", 17: "∓", 18: "+−", 19: "−+", 22: "⨀", 23: "⨀", 32: "⟳", 33: "⟳",
  36: "→", 37: "→", 40: "↑", 41: "↑", 132: "⇆", 133: "⇆", 146: "N",
};

/** Items of the move text with a space between each two. */
function spaced(items) {
  return items.filter(Boolean).flatMap((item, i) => (i ? [" ", item] : [item]));
}

function nagText(nags) {
  return nags.map((n) => NAG_GLYPHS[n] ?? `$${n}`).join(" ");
}

/**
 * A game as a student reads it: the board, and the moves with their
 * comments and variations, each move a button that shows the position
 * after it; the arrow keys step along the line on show.
 */
export class StudyView {
  constructor(id, signal) {
    this.id = id;
    this.signal = signal;
    this.nodes = new Map(); // id -> { fen, uci, check, prev, next, ply }
    this.current = "m0";
  }

  async load() {
    const [game, history, notes] = await Promise.all([
      call("GET", `/games/${this.id}`, { signal: this.signal }),
      call("GET", `/games/${this.id}/positions`, { signal: this.signal }),
      call("GET", `/games/${this.id}/annotations`, { signal: this.signal }),
    ]);
    this.game = game.body;
    this.positions = history.body.positions;
    this.notes = notes.body;
    this.index();
    this.render();
    this.keys = (event) => this.step(event);
    document.addEventListener("keydown", this.keys);
    this.signal.addEventListener("abort", () => document.removeEventListener("keydown", this.keys));
  }

  /** Every move of every line, linked to the one before and after it. */
  index() {
    this.positions.forEach((p, ply) =>
      this.nodes.set(`m${ply}`, {
        fen: p.fen,
        uci: p.move?.uci,
        check: p.check,
        prev: ply > 0 ? `m${ply - 1}` : null,
        next: ply + 1 < this.positions.length ? `m${ply + 1}` : null,
        ply,
      }),
    );
    this.byPly = new Map(this.notes.moves.map((m) => [m.ply, m]));
    this.remarks = new Map();
    for (const r of this.notes.players) this.remarks.set(r.ply, [...(this.remarks.get(r.ply) ?? []), r]);
    let counter = 0;
    const line = (moves, before, ply) =>
      moves.map((m, i) => {
        const id = `v${counter++}`;
        m.node = id;
        const prev = i === 0 ? before : moves[i - 1].node;
        // The SAN says a check: the page needs no rules for it.
        const check = /[+#]$/.test(m.san);
        this.nodes.set(id, { fen: m.fen, uci: m.uci, check, prev, next: null, ply: ply + i });
        if (i > 0) this.nodes.get(moves[i - 1].node).next = id;
        m.variations.forEach((v) => line(v, i === 0 ? before : moves[i - 1].node, ply + i));
        return m;
      });
    for (const notes of this.notes.moves) notes.variations.forEach((v) => line(v, `m${notes.ply - 1}`, notes.ply));
  }

  step(event) {
    if (event.target.closest?.("input, textarea, select")) return;
    if (this.analysis) return this.stepAnalysis(event);
    const node = this.nodes.get(this.current);
    const to = { ArrowLeft: node.prev, ArrowRight: node.next, Home: "m0", End: `m${this.positions.length - 1}` }[event.key];
    if (!to) return;
    event.preventDefault();
    this.show(to);
  }

  /** The arrow keys off the board step along the analysis line. */
  stepAnalysis(event) {
    const analysis = this.analysis;
    if (event.target.closest?.("[data-board]") || analysis.loading) return;
    const at = { ArrowLeft: analysis.at - 1, ArrowRight: analysis.at + 1, Home: 0, End: analysis.line.length }[event.key];
    if (at === undefined) return;
    event.preventDefault();
    analysis.goTo(at);
  }

  /** Opens the analysis board on the position on show. */
  async openAnalysis() {
    this.analysis = new AnalysisBoard({
      rules: this.game.rules,
      fen: this.nodes.get(this.current).fen,
      flipped: false,
      signal: this.signal,
      redraw: () => this.render(),
    });
    await this.analysis.load();
  }

  closeAnalysis() {
    this.analysis = null;
    this.render();
  }

  show(id) {
    this.current = id;
    this.render();
    // Focused without the browser's scroll, which would take the board out
    // of view on a phone; brought just into view under it instead.
    const move = main().querySelector(`[data-node="${id}"]`);
    move?.focus({ preventScroll: true });
    move?.scrollIntoView({ block: "nearest" });
  }

  /** Buttons that step along the line on show, for fingers. */
  steps() {
    const node = this.nodes.get(this.current);
    const last = `m${this.positions.length - 1}`;
    const button = (label, text, to) =>
      h("button", { type: "button", "aria-label": label, disabled: !to || to === this.current, onclick: () => this.show(to) }, text);
    return h(
      "p",
      { class: "steps" },
      button("The start", "«", "m0"),
      button("The move before", "‹", node.prev),
      button("The move after", "›", node.next),
      button("The last move", "»", last),
    );
  }

  render() {
    const game = this.game;
    const node = this.nodes.get(this.current);
    const analysis = this.analysis?.state ? this.analysis : null;
    const title = `${game.white.username} – ${game.black.username}`;
    show(
      h(
        "section",
        { class: "study", "aria-labelledby": "study-title" },
        h("h2", { id: "study-title" }, `${variantWords(game)}: ${title}`),
        h("p", { class: "start" }, [game.result ?? "*", game.opening ? `${game.opening.eco} ${game.opening.name}` : null]
          .filter(Boolean).join(", ")),
        h(
          "div",
          { class: "play" },
          h(
            "div",
            { class: "board-column" },
            analysis
              ? h("div", { class: "viewed" }, analysis.column(() => this.closeAnalysis()))
              : h(
                  "div",
                  { class: "viewed" },
                  h("div", { class: "board", role: "group", "aria-label": `Board after ply ${node.ply}` }, miniBoard(node.fen, { last: node.uci, check: node.check })),
                  this.steps(),
                ),
            h("p", { class: "hint" }, `← → step along the ${analysis ? "analysis " : ""}line, Home and End jump.`),
            analysis
              ? null
              : h("p", {}, h("button", { type: "button", onclick: () => this.openAnalysis() }, "Analysis board")),
            h("p", {}, h("button", { type: "button", onclick: () => download(`/games/${this.id}/pgn`, `kingpost-${this.id}.pgn`) },
              "Download PGN")),
          ),
          h("div", { class: "side-column" }, analysis?.lineSection(), this.movetext(), this.annotateForm()),
        ),
      ),
    );
  }

  moveButton(id, text, nags) {
    return h(
      "button",
      { type: "button", class: `san${this.current === id ? " current" : ""}`, "data-node": id, onclick: () => this.show(id) },
      text,
      nags?.length ? h("span", { class: "nag" }, nagText(nags)) : null,
    );
  }

  /** The moves as PGN reads: numbers, comments, variations in brackets. */
  movetext() {
    const parts = [];
    const comment = (text) => (text ? h("span", { class: "comment" }, text) : null);
    // White's moves numbered, Black's after a break in the moves.
    const number = (ply, always) => {
      const { number, white } = this.turnOf(ply);
      if (white) return `${number}.`;
      return always ? `${number}…` : null;
    };
    const line = (moves, firstPly) => {
      const out = [];
      moves.forEach((m, i) => {
        out.push(comment(m.starting_comment));
        out.push(number(firstPly + i, i === 0 || m.starting_comment));
        out.push(this.moveButton(m.node, m.san, m.nags), comment(m.comment));
        for (const v of m.variations) out.push(h("span", { class: "variation" }, "(", spaced(line(v, firstPly + i)), ")"));
      });
      return out;
    };
    parts.push(comment(this.notes.comment));
    for (const r of this.remarks.get(0) ?? []) parts.push(comment(`${r.author}: ${r.comment}`));
    let renumber = true;
    for (const move of this.game.moves) {
      const notes = this.byPly.get(move.ply);
      const remarks = this.remarks.get(move.ply) ?? [];
      parts.push(comment(notes?.starting_comment));
      parts.push(number(move.ply, renumber));
      const nags = [...(notes?.nags ?? []), ...remarks.flatMap((r) => r.nags)];
      parts.push(this.moveButton(`m${move.ply}`, move.san, nags), comment(notes?.comment));
      for (const r of remarks) if (r.comment) parts.push(comment(`${r.author}: ${r.comment}`));
      for (const v of notes?.variations ?? []) parts.push(h("span", { class: "variation" }, "(", spaced(line(v, move.ply)), ")"));
      renumber = Boolean(notes?.comment || notes?.variations.length || remarks.length);
    }
    parts.push(h("span", { class: "result" }, this.game.result ?? "*"));
    return h(
      "section",
      { "aria-labelledby": "movetext-title" },
      h("h3", { id: "movetext-title" }, "Moves"),
      h("p", { class: "movetext" }, spaced(parts)),
    );
  }

  /** The move number of a ply (1 is the first move) and whether White plays it. */
  turnOf(ply) {
    return lineNumbering(this.positions[0].fen)(ply - 1);
  }

  /** A player of a finished game annotates the mainline move on show. */
  annotateForm() {
    const me = session.get()?.username;
    const node = this.nodes.get(this.current);
    const player = me === this.game.white.username || me === this.game.black.username;
    if (!player || this.game.status !== "finished" || !this.current.startsWith("m")) return null;
    const mine = (this.remarks.get(node.ply) ?? []).find((r) => r.author === me);
    const text = h("textarea", { name: "comment", rows: 3, maxlength: 2000 });
    text.value = mine?.comment ?? "";
    const glyph = h(
      "select",
      { name: "nag" },
      h("option", { value: "" }, "none"),
      Object.entries(NAG_GLYPHS).slice(0, 6).map(([n, g]) => h("option", { value: n, selected: mine?.nags.includes(Number(n)) }, g)),
    );
    return h(
      "form",
      {
        class: "annotate",
        "aria-label": "Annotate",
        onsubmit: async (event) => {
          event.preventDefault();
          const body = { comment: text.value, nags: glyph.value ? [Number(glyph.value)] : [] };
          try {
            await call("PUT", `/games/${this.id}/annotations/${node.ply}`, { body });
            this.notes = (await call("GET", `/games/${this.id}/annotations`)).body;
            this.index();
            announce("Annotation saved.");
            this.render();
          } catch (error) {
            announce(describe(error));
          }
        },
      },
      h("h3", {}, node.ply === 0 ? "Your comment on the game" : `Your note on ply ${node.ply}`),
      h("label", {}, "Comment", text),
      h("label", {}, "Mark", glyph),
      h("button", { type: "submit" }, "Save the note"),
    );
  }
}

function main() {
  return document.getElementById("main");
}

/** Draws the page on show again, from fresh reads. */
function redraw() {
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}
