// Tournaments: the list with a form to organise one, and a tournament's
// page: its settings, sign-up, standings, crosstable and games. The server
// computes the standings and their tie-breaks.

import { act, call, downloadPgn, session } from "./api.js";
import { announce, h, show } from "./dom.js";
import { playerName, poolWords, profileLink } from "./players.js";
import { timeFields } from "./time.js";
import { variantOf, variantWords, variants } from "./variants.js";
import { clockWords, daysPerMoveWords, describe, startKindWords, startWords, words } from "./words.js";

const STATUSES = ["open", "started", "finished"];

/** "½", "1", "0" for a side's score in a game, or "·" while under way. */
function scoreWords(result, white) {
  if (!result) return "·";
  if (result === "1/2-1/2") return "½";
  return (result === "1-0") === white ? "1" : "0";
}

/** The tournaments of one status, newest first, and the form to organise one. */
export async function tournamentsPage(query, signal) {
  const params = new URLSearchParams(query ?? "");
  const status = STATUSES.includes(params.get("status")) ? params.get("status") : "open";
  const { body } = await call("GET", `/tournaments?status=${status}`, { signal });
  const tabs = h(
    "p",
    { class: "tabs" },
    STATUSES.map((s) =>
      h("a", { href: `#/tournaments?status=${s}`, "aria-current": s === status ? "page" : false }, words(s)),
    ),
  );
  const list = body.tournaments.length
    ? h(
        "ul",
        { class: "tournaments" },
        body.tournaments.map((t) =>
          h(
            "li",
            {},
            h("a", { href: `#/tournaments/${t.id}` }, t.name),
            h(
              "span",
              { class: "about" },
              `${poolWords(t.rules, t.start.kind === "standard" ? "standard" : t.start.kind)}, `,
              `${t.player_count} of ${t.capacity} players, ${t.rated ? "rated" : "casual"}`,
            ),
          ),
        ),
      )
    : h("p", {}, `No ${words(status)} tournaments.`);
  show(
    h(
      "section",
      { "aria-labelledby": "tournaments-title" },
      h("h2", { id: "tournaments-title" }, "Tournaments"),
      tabs,
      list,
    ),
    organiseForm(),
  );
}

function organiseForm() {
  const name = h("input", { name: "name", required: true, maxlength: 80 });
  const rules = h(
    "select",
    { name: "rules" },
    variants().map((v) => h("option", { value: v.key }, v.title)),
  );
  // The starts of the rule set chosen, as the server lists them; a drawn
  // array (Chess960, Shuffle) once for all or anew each round.
  const start = h("select", { name: "start" });
  const syncStarts = () => {
    const variant = variantOf(rules.value);
    const options = variant.starts
      .filter((kind) => kind !== "fen")
      .flatMap((kind) =>
        ["chess960", "shuffle"].includes(kind)
          ? [
              [kind, `${startKindWords(kind)}: one array for all`],
              [`${kind}-round`, `${startKindWords(kind)}: an array for each round`],
            ]
          : [[kind, startKindWords(kind)]],
      );
    start.replaceChildren(...options.map(([value, label]) => h("option", { value }, label)));
    syncRated();
  };
  // Rated only from the starts the server rates.
  const syncRated = () => {
    ratedField.hidden = !variantOf(rules.value).rated_starts.includes(start.value.replace(/-round$/, ""));
  };
  rules.addEventListener("change", syncStarts);
  start.addEventListener("change", syncRated);
  const time = timeFields();
  const capacity = h("input", { name: "capacity", type: "number", min: 3, max: 17, value: 7, required: true });
  const deadline = h("input", { name: "deadline", type: "date", required: true });
  const week = new Date(Date.now() + 7 * 86400_000);
  deadline.value = week.toISOString().slice(0, 10);
  const rated = h("input", { name: "rated", type: "checkbox" });
  const ratedField = h("label", { class: "setting" }, rated, "Rated");
  const double = h("input", { name: "double", type: "checkbox" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    {
      "aria-label": "Organise a tournament",
      onsubmit: async (event) => {
        event.preventDefault();
        const body = {
          name: name.value,
          rules: rules.value,
          start: { kind: start.value.replace(/-round$/, "") },
          start_per_round: start.value.endsWith("-round"),
          ...time.value(),
          capacity: Number(capacity.value),
          signup_deadline: new Date(`${deadline.value}T23:59:59Z`).toISOString(),
          rated: !ratedField.hidden && rated.checked,
          double: double.checked,
        };
        try {
          const { body: created } = await act("/tournaments", body);
          location.hash = `#/tournaments/${created.id}`;
        } catch (e) {
          error.textContent = describe(e);
        }
      },
    },
    h("h2", {}, "Organise a round robin"),
    h("label", {}, "Name", name),
    h("label", {}, "Rules", rules),
    h("label", {}, "Start", start),
    time.fields,
    h("label", {}, "Players (3 to 17)", capacity),
    h("label", {}, "Sign-up closes", deadline),
    ratedField,
    h("label", { class: "setting" }, double, "Double round robin (both colours)"),
    h("button", { type: "submit" }, "Organise"),
    error,
  );
  syncStarts();
  return form;
}

/** A tournament: settings, sign-up, standings, crosstable, games. */
export async function tournamentPage(id, signal) {
  const { body: t } = await call("GET", `/tournaments/${id}`, { signal });
  const me = session.get()?.username;
  const playing = t.players.some((p) => p.username === me);
  const refresh = () => tournamentPage(id, signal);
  const button = (label, path) =>
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await act(`/tournaments/${id}/${path}`);
            announce(`${label}: done.`);
            await refresh();
          } catch (error) {
            announce(describe(error));
          }
        },
      },
      label,
    );
  const actions = [];
  if (t.status === "open" && !playing) actions.push(button("Join", "join"));
  if (t.status === "open" && playing) actions.push(button("Leave", "leave"));
  if (t.status === "started" && playing) actions.push(button("Withdraw", "leave"));
  const time = t.clock ? clockWords(t.clock) : daysPerMoveWords(t.days_per_move);
  const about = [
    `${variantWords(t)}, ${startWords(t.start)}${t.start_per_round ? " (one for each round)" : ""}`,
    time,
    t.rated ? "rated" : "casual",
    t.double ? "double round robin" : "single round robin",
    `${t.player_count} of ${t.capacity} players`,
  ];
  if (t.rating_range) about.push(`ratings ${t.rating_range.min} to ${t.rating_range.max}`);
  const state =
    t.status === "open"
      ? `Sign-up open until ${new Date(t.signup_deadline).toLocaleString()}.`
      : t.status === "finished"
        ? `Finished. Won by ${t.winners.map((w) => w.username).join(" and ")}.`
        : t.status === "started"
          ? "Under way: every game started at once."
          : "Cancelled: fewer than three players signed up.";
  const sections = [
    h(
      "section",
      { "aria-labelledby": "tournament-title", class: "tournament" },
      h("h2", { id: "tournament-title" }, t.name),
      h("p", { class: "about" }, `${about.join(", ")}. Organised by `, profileLink(t.organiser.username), "."),
      h("p", { class: "state" }, state),
      actions.length ? h("p", { class: "actions" }, ...actions) : "",
      t.status === "open"
        ? h("ul", { class: "players" }, t.players.map((p) => h("li", {}, playerName(p))))
        : "",
    ),
  ];
  if (t.standings.length) sections.push(standingsSection(t), crosstableSection(t), gamesSection(t));
  show(...sections);
}

function standingsSection(t) {
  const head = ["Place", "Player", "Points", "Wins", "Sonneborn-Berger", "Direct", "Games left"];
  return h(
    "section",
    { "aria-labelledby": "standings-title" },
    h("h3", { id: "standings-title" }, "Standings"),
    h(
      "table",
      { class: "standings" },
      h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        t.standings.map((s) =>
          h(
            "tr",
            { class: s.withdrawn ? "withdrawn" : "" },
            h("td", {}, `${s.place}`),
            h(
              "td",
              {},
              playerName(s.player),
              s.withdrawn ? ` (withdrew${s.annulled ? ", results annulled" : ""})` : "",
            ),
            h("td", {}, `${s.points}`),
            h("td", {}, `${s.wins}`),
            h("td", {}, `${s.sonneborn_berger}`),
            h("td", {}, `${s.direct_encounter}`),
            h("td", {}, `${s.unfinished}`),
          ),
        ),
      ),
    ),
  );
}

/** Rows and columns by seat: each cell the row player's scores against the column's. */
function crosstableSection(t) {
  const bySeat = [...t.standings].sort((a, b) => a.seat - b.seat);
  const cell = (row, column) => {
    if (row === column) return "×";
    const scores = t.games
      .filter(
        (g) =>
          (g.white.username === row && g.black.username === column) ||
          (g.black.username === row && g.white.username === column),
      )
      .map((g) => scoreWords(g.result, g.white.username === row));
    return scores.join(" ");
  };
  return h(
    "section",
    { "aria-labelledby": "crosstable-title" },
    h("h3", { id: "crosstable-title" }, "Crosstable"),
    h(
      "table",
      { class: "crosstable" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Seat"),
          h("th", { scope: "col" }, "Player"),
          bySeat.map((s) => h("th", { scope: "col", title: s.player.username }, `${s.seat}`)),
        ),
      ),
      h(
        "tbody",
        {},
        bySeat.map((r) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, `${r.seat}`),
            h("td", {}, r.player.username),
            bySeat.map((c) => h("td", {}, cell(r.player.username, c.player.username))),
          ),
        ),
      ),
    ),
    h("p", { class: "hint" }, "· a game under way."),
  );
}

function gamesSection(t) {
  return h(
    "section",
    { "aria-labelledby": "tournament-games-title" },
    h("h3", { id: "tournament-games-title" }, "Games"),
    h(
      "ul",
      { class: "tournament-games" },
      t.games.map((g) =>
        h(
          "li",
          {},
          `Round ${g.round}, board ${g.board}: `,
          h("a", { href: `#/games/${g.game_id}` }, `${g.white.username} – ${g.black.username}`),
          ` ${g.result ?? "under way"}`,
        ),
      ),
    ),
    h(
      "p",
      {},
      h(
        "button",
        {
          type: "button",
          onclick: () => downloadPgn(`/tournaments/${t.id}/games.pgn`, `${t.name}.pgn`).catch((e) => announce(describe(e))),
        },
        "Download the games (PGN)",
      ),
    ),
  );
}
