// Tournaments: the list with a form to organise one (a round robin, a
// Swiss or a team match), and a tournament's page: its settings, sign-up,
// standings, crosstable (a Swiss's round by round) and games; a team
// match's boards and live score. The server pairs the rounds and computes
// the standings, their tie-breaks and the score.

import { act, call, downloadPgn, listen, session } from "./api.js";
import { announce, h, show } from "./dom.js";
import { playerName, poolWords, profileLink } from "./players.js";
import { matchWords } from "./teams.js";
import { timeFields } from "./time.js";
import { variantOf, variantWords, variants } from "./variants.js";
import { clockWords, daysPerMoveWords, describe, startKindWords, startWords, words } from "./words.js";

const STATUSES = ["open", "started", "finished"];

const TIEBREAKS = {
  buchholz: "Buchholz",
  buchholz_cut1: "Buchholz cut 1",
  sonneborn_berger: "Sonneborn-Berger",
  progressive: "Progressive",
  direct_encounter: "Direct encounter",
};

/** "Swiss, 5 rounds" or "single round robin". */
function formatWords(t) {
  if (t.format === "team_match") return `team match on ${t.capacity} ${t.capacity === 1 ? "board" : "boards"}`;
  if (t.format === "swiss") return `Swiss, ${t.rounds ? `${t.rounds} rounds` : "rounds set from the entries"}`;
  return t.double ? "double round robin" : "single round robin";
}

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
  const me = session.get()?.username;
  const [{ body: mine }, { body: all }] = await Promise.all([
    call("GET", `/teams?member=${encodeURIComponent(me)}`, { signal }),
    call("GET", "/teams?limit=100", { signal }),
  ]);
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
              t.format === "team_match"
                ? `${matchWords(t)}, ${t.rated ? "rated" : "casual"}`
                : `${formatWords(t)}, ${t.player_count} of ${t.capacity} players, ${t.rated ? "rated" : "casual"}`,
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
    organiseForm({ mine: mine.teams, all: all.teams, asked: params }),
  );
}

/** The form to organise a tournament; `teams` the player's and all, for a
 * team match (`asked` may choose it, with its home team). */
function organiseForm(teams) {
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
  const format = h(
    "select",
    { name: "format" },
    h("option", { value: "round_robin" }, "Round robin: everyone plays everyone"),
    h("option", { value: "swiss" }, "Swiss: round by round, equal scores meet"),
    h("option", { value: "team_match" }, "Team match: two teams, board against board"),
  );
  const teamOptions = (list) => list.map((t) => h("option", { value: t.id }, t.name));
  const home = h("select", { name: "home" }, teamOptions(teams.mine));
  const away = h("select", { name: "away" }, teamOptions(teams.all));
  if (teams.asked.get("home")) home.value = teams.asked.get("home");
  const teamFields = h(
    "fieldset",
    { class: "swiss" },
    h("legend", {}, "Team match"),
    h("label", {}, "Your team (you captain it)", home),
    h("label", {}, "Opponent team", away),
    h("p", { class: "hint" }, "A captain of the other team accepts the match; each board plays two games, one with each colour."),
  );
  const capacity = h("input", { name: "capacity", type: "number", min: 3, max: 17, value: 7, required: true });
  const capacityLabel = h("span", {}, "Players (3 to 17)");
  const rounds = h("input", { name: "rounds", type: "number", min: 1, placeholder: "from the entries" });
  const roundDays = h("input", { name: "round_days", type: "number", min: 1, placeholder: "none" });
  const adjudication = h(
    "select",
    { name: "adjudication" },
    h("option", { value: "wait" }, "The round waits for them"),
    h("option", { value: "draw" }, "They are adjudicated draws"),
  );
  const swissFields = h(
    "fieldset",
    { class: "swiss" },
    h("legend", {}, "Swiss"),
    h("label", {}, "Rounds", rounds),
    h("label", {}, "Days for each round", roundDays),
    h("label", {}, "Games under way at a round's deadline", adjudication),
    h("p", { class: "hint" }, "Tie-breaks: Buchholz cut 1, Buchholz, Sonneborn-Berger, direct encounter, progressive."),
  );
  const syncFormat = () => {
    const swiss = format.value === "swiss";
    const teamMatch = format.value === "team_match";
    swissFields.hidden = !swiss;
    teamFields.hidden = !teamMatch;
    doubleField.hidden = swiss || teamMatch;
    const [least, most, what] = teamMatch ? [1, 100, "Boards"] : swiss ? [3, 1000, "Players"] : [3, 17, "Players"];
    capacity.min = least;
    capacity.max = most;
    capacityLabel.textContent = `${what} (${least} to ${most.toLocaleString("en")})`;
  };
  format.addEventListener("change", syncFormat);
  const deadline = h("input", { name: "deadline", type: "date", required: true });
  const week = new Date(Date.now() + 7 * 86400_000);
  deadline.value = week.toISOString().slice(0, 10);
  const rated = h("input", { name: "rated", type: "checkbox" });
  const ratedField = h("label", { class: "setting" }, rated, "Rated");
  const double = h("input", { name: "double", type: "checkbox" });
  const vacation = h("input", { name: "vacation", type: "checkbox", checked: true });
  const whenFull = h("input", { name: "start_when_full", type: "checkbox", checked: true });
  const doubleField = h("label", { class: "setting" }, double, "Double round robin (both colours)");
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
          format: format.value,
          vacation: vacation.checked,
          start_when_full: whenFull.checked,
        };
        if (format.value === "team_match") {
          body.teams = { home: home.value, away: away.value };
        } else if (format.value === "swiss") {
          if (rounds.value) body.rounds = Number(rounds.value);
          if (roundDays.value) {
            body.round_days = Number(roundDays.value);
            body.adjudication = adjudication.value;
          }
        } else {
          body.double = double.checked;
        }
        try {
          const { body: created } = await act("/tournaments", body);
          location.hash = `#/tournaments/${created.id}`;
        } catch (e) {
          error.textContent = describe(e);
        }
      },
    },
    h("h2", {}, "Organise a tournament"),
    h("label", {}, "Name", name),
    h("label", {}, "Format", format),
    h("label", {}, "Rules", rules),
    h("label", {}, "Start", start),
    time.fields,
    h("label", {}, capacityLabel, capacity),
    h("label", {}, "Sign-up closes (the start time)", deadline),
    h("label", { class: "setting" }, whenFull, "Start as soon as it is full (else when sign-up closes)"),
    ratedField,
    h("label", { class: "setting" }, vacation, "A player's vacation stops their clocks"),
    doubleField,
    swissFields,
    teamFields,
    h("button", { type: "submit" }, "Organise"),
    error,
  );
  if (teams.asked.get("organise") === "team_match") format.value = "team_match";
  syncStarts();
  syncFormat();
  return form;
}

/** A button that acts on tournament `id` (POST `path`) and draws its page anew. */
function actionButton(id, label, path, refresh, body) {
  return h(
    "button",
    {
      type: "button",
      onclick: async () => {
        try {
          await act(`/tournaments/${id}/${path}`, body);
          announce(`${label}: done.`);
          await refresh();
        } catch (error) {
          announce(describe(error));
        }
      },
    },
    label,
  );
}

/** The rules the event sets, in words: game, time, rated, format, vacation. */
function settingsWords(t) {
  const time = t.clock ? clockWords(t.clock) : daysPerMoveWords(t.days_per_move);
  const about = [
    `${variantWords(t)}, ${startWords(t.start)}${t.start_per_round ? " (one for each round)" : ""}`,
    time,
    t.rated ? "rated" : "casual",
    formatWords(t),
  ];
  if (t.format !== "team_match") about.push(`${t.player_count} of ${t.capacity} players`);
  about.push(t.vacation ? "vacations stop the clocks" : "no vacation: the clocks run");
  if (t.format === "swiss" && t.round_days) {
    about.push(
      `${t.round_days} ${t.round_days === 1 ? "day" : "days"} a round, ` +
        (t.adjudication === "draw" ? "games under way then drawn" : "then the round waits"),
    );
  }
  if (t.rating_range) about.push(`ratings ${t.rating_range.min} to ${t.rating_range.max}`);
  return about.join(", ");
}

/** A tournament: settings, sign-up, standings, crosstable, games. */
export async function tournamentPage(id, signal) {
  const { body: t } = await call("GET", `/tournaments/${id}`, { signal });
  if (t.format === "team_match") return teamMatchPage(t, signal);
  const me = session.get()?.username;
  const playing = t.players.some((p) => p.username === me);
  const refresh = () => tournamentPage(id, signal);
  const button = (label, path) => actionButton(id, label, path, refresh);
  const swiss = t.format === "swiss";
  const actions = [];
  const lateEntry = swiss && t.status === "started" && t.round < t.rounds && t.player_count < t.capacity;
  if ((t.status === "open" || lateEntry) && !playing) actions.push(button("Join", "join"));
  if (t.status === "open" && playing) actions.push(button("Leave", "leave"));
  if (t.status === "started" && playing) actions.push(button("Withdraw", "leave"));
  const state =
    t.status === "open"
      ? `Sign-up open until ${new Date(t.signup_deadline).toLocaleString()}` +
        (t.start_when_full ? ", or until it is full." : ", when it starts.")
      : t.status === "finished"
        ? `Finished. Won by ${t.winners.map((w) => w.username).join(" and ")}.`
        : t.status === "started"
          ? swiss
            ? `Under way: round ${t.round} of ${t.rounds}` +
              (t.round_deadline ? `, until ${new Date(t.round_deadline).toLocaleString()}.` : ".") +
              " The next round is paired when this one's last game ends."
            : "Under way: every game started at once."
          : "Cancelled: fewer than three players signed up.";
  const sections = [
    h(
      "section",
      { "aria-labelledby": "tournament-title", class: "tournament" },
      h("h2", { id: "tournament-title" }, t.name),
      h("p", { class: "about" }, `${settingsWords(t)}. Organised by `, profileLink(t.organiser.username), "."),
      h("p", { class: "state" }, state),
      actions.length ? h("p", { class: "actions" }, ...actions) : "",
      t.status === "open"
        ? h("ul", { class: "players" }, t.players.map((p) => h("li", {}, playerName(p))))
        : "",
    ),
  ];
  if (t.standings.length) {
    sections.push(standingsSection(t), swiss ? roundsTableSection(t) : crosstableSection(t), gamesSection(t));
  }
  show(...sections);
}

/**
 * A team match: the score, live (drawn anew as its games end), the sign-up
 * of each side in board order, a captain's accept and board order before
 * the start, then the boards with their two games each.
 */
async function teamMatchPage(t, signal) {
  const m = t.team_match;
  const me = session.get()?.username;
  const refresh = () => tournamentPage(t.id, signal);
  const button = (label, path, body) => actionButton(t.id, label, path, refresh, body);
  const [{ body: home }, { body: away }] = await Promise.all([
    call("GET", `/teams/${m.home.team.id}`, { signal }),
    call("GET", `/teams/${m.away.team.id}`, { signal }),
  ]);
  const captainOf = (team) => team.members.some((x) => x.captain && x.player.username === me);
  const playing = t.players.some((p) => p.username === me);
  const actions = [];
  if (t.status === "open") {
    if (!m.accepted_at && captainOf(away)) actions.push(button("Accept the match", "accept"));
    if (!playing) actions.push(button("Sign up for your team", "join"));
    else actions.push(button("Leave", "leave"));
  }
  if (t.status === "started" && playing) actions.push(button("Withdraw", "leave"));
  const state =
    t.status === "open"
      ? (m.accepted_at ? "Accepted. " : `Waiting for a captain of ${m.away.team.name} to accept. `) +
        `Sign-up open until ${new Date(t.signup_deadline).toLocaleString()}` +
        (t.start_when_full ? ", or until both sides fill every board." : ", when it starts.")
      : t.status === "cancelled"
        ? "Cancelled: not accepted, or a side without players, at its start time."
        : t.status === "finished"
          ? m.winner
            ? `Finished: ${m.winner.name} won.`
            : "Finished: a drawn match."
          : `Under way: ${m.under_way} ${m.under_way === 1 ? "game" : "games"} still being played.`;
  const teamLink = (side) => h("a", { href: `#/teams/${side.team.id}` }, side.team.name);
  const sections = [
    h(
      "section",
      { "aria-labelledby": "tournament-title", class: "tournament" },
      h("h2", { id: "tournament-title" }, t.name),
      h(
        "p",
        { class: "score", "aria-live": "polite" },
        teamLink(m.home),
        h("strong", {}, ` ${points(m.home.points)} – ${points(m.away.points)} `),
        teamLink(m.away),
      ),
      h("p", { class: "about" }, `${settingsWords(t)}. Organised by `, profileLink(t.organiser.username), "."),
      h("p", { class: "state" }, state),
      actions.length ? h("p", { class: "actions" }, ...actions.flatMap((a) => [a, " "])) : "",
    ),
  ];
  if (t.status === "open") {
    sections.push(signUpSection(t, [m.home, home], [m.away, away], captainOf, refresh));
  } else if (m.boards.length) {
    sections.push(boardsSection(t));
  }
  show(...sections);
  if (t.status === "started") keepLive(signal, refresh);
}

// The visits whose page is kept live, each once however often it is drawn.
const liveVisits = new WeakSet();
/** Keeps a match's score live while its page is on show: drawn anew when
 * one of the player's own games ends (their events), and every
 * `LIVE_EVERY` ms while the tab is visible for the other boards' games. */
function keepLive(signal, refresh) {
  if (!signal || liveVisits.has(signal)) return;
  liveVisits.add(signal);
  const again = () => !signal.aborted && refresh().catch(() => {});
  listen(signal, (event) => ["game_finished", "team_match_finished"].includes(event.type) && again());
  const timer = setInterval(() => document.visibilityState === "visible" && again(), LIVE_EVERY);
  signal.addEventListener("abort", () => clearInterval(timer));
}
const LIVE_EVERY = 10_000;

/** ½ points as a player reads them: "4½", "½", "3". */
function points(value) {
  const whole = Math.floor(value);
  const half = value - whole >= 0.5 ? "½" : "";
  return whole === 0 && half ? half : `${whole}${half}`;
}

/** Each side's players in board order; a captain's board order form. */
function signUpSection(t, [homeSide, homeTeam], [awaySide, awayTeam], captainOf, refresh) {
  const column = (side, team) => {
    const order = h("input", { name: "order", value: side.players.map((p) => p.username).join(", "), "aria-label": `Board order of ${side.team.name}` });
    return h(
      "div",
      { class: "side" },
      h("h4", {}, side.team.name),
      side.players.length
        ? h("ol", { class: "players" }, side.players.map((p) => h("li", {}, playerName(p))))
        : h("p", {}, "Nobody signed up yet."),
      captainOf(team) && side.players.length > 1
        ? h(
            "form",
            {
              class: "order",
              onsubmit: (event) => {
                event.preventDefault();
                const usernames = order.value.split(/[\s,]+/).filter(Boolean);
                call("PUT", `/tournaments/${t.id}/board-order`, { body: { usernames } })
                  .then(() => (announce("Board order set."), refresh()))
                  .catch((e) => announce(describe(e)));
              },
            },
            h("label", {}, "Board order (usernames, first board first)", order),
            h("button", { type: "submit" }, "Set the order"),
          )
        : "",
    );
  };
  return h(
    "section",
    { "aria-labelledby": "sign-up-title" },
    h("h3", { id: "sign-up-title" }, `Signed up (${t.capacity} ${t.capacity === 1 ? "board" : "boards"} a side)`),
    h("div", { class: "sides" }, column(homeSide, homeTeam), column(awaySide, awayTeam)),
    h("p", { class: "hint" }, "Boards in order: a captain's order first, then by rating. The shorter side sets how many boards are played."),
  );
}

/** The boards: the two players, their points, and their two games. */
/** The button that downloads a tournament's games as one PGN file. */
function pgnButton(t) {
  return h(
    "button",
    {
      type: "button",
      onclick: () => downloadPgn(`/tournaments/${t.id}/games.pgn`, `${t.name}.pgn`).catch((e) => announce(describe(e))),
    },
    "Download the games (PGN)",
  );
}

function boardsSection(t) {
  const m = t.team_match;
  const gameLink = (board, round) => {
    const g = t.games.find((x) => x.board === board && x.round === round);
    if (!g) return "";
    const label = `${g.white.username} – ${g.black.username}, ${g.result ?? "under way"}`;
    return h("a", { href: `#/games/${g.game_id}`, title: label, "aria-label": label }, g.result ?? "·");
  };
  return h(
    "section",
    { "aria-labelledby": "boards-title" },
    h("h3", { id: "boards-title" }, "Boards"),
    h(
      "table",
      { class: "standings boards" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Board", "Home", "", "Away", "Games"].map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        m.boards.map((b) =>
          h(
            "tr",
            {},
            h("td", {}, `${b.board}`),
            h("td", {}, playerName(b.home)),
            h("td", { class: "points" }, `${points(b.home_points)} – ${points(b.away_points)}`),
            h("td", {}, playerName(b.away)),
            h("td", { class: "games" }, gameLink(b.board, 1), gameLink(b.board, 2)),
          ),
        ),
      ),
    ),
    h("p", { class: "hint" }, `Home: ${m.home.team.name}; away: ${m.away.team.name}. Each board's first game has the home player White, its second the away player; · a game under way.`),
    h("p", {}, pgnButton(t)),
  );
}

function standingsSection(t) {
  const swiss = t.format === "swiss";
  const head = swiss
    ? ["Place", "Player", "Points", ...t.tiebreaks.map((k) => TIEBREAKS[k] ?? words(k)), "Games left"]
    : ["Place", "Player", "Points", "Wins", "Sonneborn-Berger", "Direct", "Games left"];
  const tieBreaks = (s) =>
    swiss
      ? s.tiebreaks.map((v) => h("td", {}, `${v.value}`))
      : [h("td", {}, `${s.wins}`), h("td", {}, `${s.sonneborn_berger}`), h("td", {}, `${s.direct_encounter}`)];
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
            ...tieBreaks(s),
            h("td", {}, `${s.unfinished}`),
          ),
        ),
      ),
    ),
  );
}

/**
 * A Swiss round by round, by place: each cell the round's opponent by
 * pairing number, the colour and the score ("+3w", "=5b", "−2w", "· 4b"
 * under way), or the bye ("bye +") or an absence ("–").
 */
function roundsTableSection(t) {
  const seatOf = new Map(t.standings.map((s) => [s.player.username, s.seat]));
  const cell = (username, round) => {
    const game = t.games.find(
      (g) => g.round === round && (g.white.username === username || g.black.username === username),
    );
    if (game) {
      const white = game.white.username === username;
      const opponent = white ? game.black.username : game.white.username;
      const score = { "1": "+", "0": "−", "½": "=", "·": "· " }[scoreWords(game.result, white)];
      return `${score}${seatOf.get(opponent)}${white ? "w" : "b"}`;
    }
    const bye = t.byes.find((b) => b.round === round && b.player.username === username);
    return bye?.kind === "pairing" ? "bye +" : "–";
  };
  const rounds = Array.from({ length: t.round }, (_, i) => i + 1);
  return h(
    "section",
    { "aria-labelledby": "crosstable-title" },
    h("h3", { id: "crosstable-title" }, "Round by round"),
    h(
      "table",
      { class: "crosstable" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "No."),
          h("th", { scope: "col" }, "Player"),
          rounds.map((r) => h("th", { scope: "col" }, `R${r}`)),
          h("th", { scope: "col" }, "Points"),
        ),
      ),
      h(
        "tbody",
        {},
        t.standings.map((s) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, `${s.seat}`),
            h("td", {}, s.player.username),
            rounds.map((r) => h("td", {}, cell(s.player.username, r))),
            h("td", {}, `${s.points}`),
          ),
        ),
      ),
    ),
    h("p", { class: "hint" }, "Players by place, numbered by rating at the start; + a win, = a draw, − a loss, · under way; w and b the colour."),
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
  const swiss = t.format === "swiss";
  const rounds = [...new Set(t.games.map((g) => g.round))];
  const byesOf = (round) => t.byes.filter((b) => b.round === round);
  const gameItem = (g) =>
    h(
      "li",
      {},
      swiss ? `Board ${g.board}: ` : `Round ${g.round}, board ${g.board}: `,
      h("a", { href: `#/games/${g.game_id}` }, `${g.white.username} – ${g.black.username}`),
      ` ${g.result ?? "under way"}`,
    );
  const list = swiss
    ? rounds.map((round) =>
        h(
          "div",
          { class: "round" },
          h("h4", {}, `Round ${round}`),
          h(
            "ul",
            { class: "tournament-games" },
            t.games.filter((g) => g.round === round).map(gameItem),
            byesOf(round).map((b) =>
              h(
                "li",
                { class: "bye" },
                `${b.player.username}: ${b.kind === "pairing" ? "the bye (a point)" : "absent"}`,
              ),
            ),
          ),
        ),
      )
    : h("ul", { class: "tournament-games" }, t.games.map(gameItem));
  const downloads = [pgnButton(t)];
  if (swiss) {
    downloads.push(
      " ",
      h("a", { href: `/api/v1/tournaments/${t.id}/report.trf`, download: `${t.name}.trf` }, "The report (FIDE's TRF)"),
    );
  }
  return h(
    "section",
    { "aria-labelledby": "tournament-games-title" },
    h("h3", { id: "tournament-games-title" }, swiss ? "Pairings" : "Games"),
    list,
    h("p", {}, ...downloads),
  );
}
