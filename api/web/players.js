// Players: a profile (ratings per pool, results, activity, a rating
// history) and a pool's leaderboard. The server computes every figure.

import { call, session } from "./api.js";
import { h, show } from "./dom.js";
import { titleOf, variantOf, variants } from "./variants.js";
import { startKindWords } from "./words.js";

/** A pool in words: the rule set's title, and its start unless the usual. */
export function poolWords(rules, start) {
  const name = titleOf(rules);
  return start === "standard" ? name : `${name}, ${startKindWords(start)}`;
}

/** "1512" or "1500?" for a provisional rating. */
export function ratingWords(rating) {
  return `${rating.rating}${rating.provisional ? "?" : ""}`;
}

/** "+12", "−7", "±0". */
export function changeWords(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}

/** The mark of a BOT account: an engine, whose games are casual. */
export function botMark() {
  return h("abbr", { class: "bot-mark", title: "A BOT: an engine playing through the Bot API" }, "BOT");
}

/** A player's name linked to the profile, with the BOT mark for a BOT. */
export function playerName(player) {
  return player.bot ? [profileLink(player.username), " ", botMark()] : profileLink(player.username);
}

export function profileLink(username) {
  return h("a", { href: `#/users/${encodeURIComponent(username)}` }, username);
}

function dateWords(at) {
  return at ? new Date(at).toLocaleDateString(undefined, { dateStyle: "medium" }) : "never";
}

/** A player's profile, and the history of the pool chosen (the first). */
export async function profilePage(username, query, signal) {
  const { body } = await call("GET", `/users/${encodeURIComponent(username)}`, { signal });
  const params = new URLSearchParams(query ?? "");
  const chosen =
    body.ratings.find((r) => r.rules === params.get("rules") && r.start === params.get("start")) ??
    body.ratings[0];
  const ratings = body.ratings.length
    ? h(
        "table",
        { class: "ratings" },
        h(
          "thead",
          {},
          h("tr", {}, ["Pool", "Rating", "Deviation", "Games", "Last rated game"].map((t) => h("th", {}, t))),
        ),
        h(
          "tbody",
          {},
          body.ratings.map((r) =>
            h(
              "tr",
              { class: r === chosen ? "chosen" : "" },
              h(
                "td",
                {},
                h(
                  "a",
                  { href: `#/users/${encodeURIComponent(body.username)}?rules=${r.rules}&start=${r.start}` },
                  poolWords(r.rules, r.start),
                ),
              ),
              h("td", {}, ratingWords(r)),
              h("td", {}, `${r.deviation}`),
              h("td", {}, `${r.games}`),
              h("td", {}, dateWords(r.last_rated_at)),
            ),
          ),
        ),
      )
    : h("p", {}, "No rated games yet.");
  const records = body.records.length
    ? h(
        "ul",
        { class: "records" },
        body.records.map((r) =>
          h("li", {}, `${poolWords(r.rules, "standard")}: ${r.wins} won, ${r.draws} drawn, ${r.losses} lost`),
        ),
      )
    : h("p", {}, "No finished games yet.");
  const facts = [
    `Playing ${body.games_under_way} game${body.games_under_way === 1 ? "" : "s"}`,
    `last active ${dateWords(body.last_active_at)}`,
    `member since ${dateWords(body.created_at)}`,
  ];
  if (body.on_vacation) facts.push("on vacation");
  const sections = [
    h(
      "section",
      { "aria-labelledby": "profile-title", class: "profile" },
      h("h2", { id: "profile-title" }, body.username, body.bot ? [" ", botMark()] : null),
      body.bot ? h("p", {}, "An engine, playing through lichess's Bot API. Its games are casual.") : null,
      h("p", { class: "facts" }, `${facts.join(", ")}.`),
      body.username === session.get()?.username
        ? null
        : h("p", {}, h("a", { href: `#/challenge/${encodeURIComponent(body.username)}` }, `Challenge ${body.username}`)),
      h("h3", {}, "Ratings"),
      ratings,
      h("h3", {}, "Results"),
      records,
    ),
  ];
  if (chosen) sections.push(await historySection(body.username, chosen, signal));
  show(...sections);
}

/** The rating after each rated game of a pool, drawn as a line. */
async function historySection(username, pool, signal) {
  const path = `/users/${encodeURIComponent(username)}/rating-history?rules=${pool.rules}&start=${pool.start}&limit=100`;
  const { body } = await call("GET", path, { signal });
  const points = body.points;
  const title = `Rating history: ${poolWords(pool.rules, pool.start)}`;
  const rows = points
    .slice(-10)
    .reverse()
    .map((p) =>
      h(
        "li",
        {},
        h("a", { href: `#/games/${p.game_id}` }, dateWords(p.at)),
        ` ${p.rating} (${changeWords(p.change)})`,
      ),
    );
  return h(
    "section",
    { "aria-labelledby": "history-title" },
    h("h3", { id: "history-title" }, title),
    points.length > 1 ? sparkline(points.map((p) => p.rating), title) : "",
    h("ul", { class: "history" }, rows),
    h("p", {}, h("a", { href: `#/leaderboard?rules=${pool.rules}&start=${pool.start}` }, "Leaderboard of this pool")),
  );
}

/** An SVG line through `values`, oldest at the left. */
function sparkline(values, label) {
  const width = 320;
  const height = 80;
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = Math.max(high - low, 1);
  const x = (i) => (i / (values.length - 1)) * (width - 8) + 4;
  const y = (v) => height - 4 - ((v - low) / span) * (height - 8);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "sparkline");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${label}: from ${values[0]} to ${values.at(-1)}, between ${low} and ${high}`);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i)},${y(v)}`).join(" "));
  svg.append(line);
  return svg;
}

/** A pool's leaderboard, a page at a time, with a chooser of pools. */
export async function leaderboardPage(query, signal) {
  const params = new URLSearchParams(query ?? "");
  const rules = params.get("rules") ?? "standard";
  const start = params.get("start") ?? "standard";
  const cursor = params.get("cursor");
  let path = `/leaderboard?rules=${encodeURIComponent(rules)}&start=${encodeURIComponent(start)}`;
  if (cursor) path += `&cursor=${encodeURIComponent(cursor)}`;
  const { body } = await call("GET", path, { signal });
  const rulesChoice = h(
    "select",
    { name: "rules" },
    variants().map((v) => h("option", { value: v.key, selected: v.key === rules }, v.title)),
  );
  const startChoice = h(
    "select",
    { name: "start" },
    // The pools: the starts the server rates.
    (variantOf(rules)?.rated_starts ?? []).map((s) =>
      h("option", { value: s, selected: s === start }, startKindWords(s)),
    ),
  );
  const chooser = h(
    "form",
    {
      class: "pool-chooser",
      "aria-label": "Pool",
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/leaderboard?rules=${rulesChoice.value}&start=${startChoice.value}`;
      },
    },
    h("label", {}, "Rules", rulesChoice),
    h("label", {}, "Start", startChoice),
    h("button", { type: "submit" }, "Show"),
  );
  const table = body.entries.length
    ? h(
        "table",
        { class: "leaderboard" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "Deviation", "Games"].map((t) => h("th", {}, t)))),
        h(
          "tbody",
          {},
          body.entries.map((e) =>
            h(
              "tr",
              {},
              h("td", {}, `${e.rank}`),
              h("td", {}, profileLink(e.username)),
              h("td", {}, `${e.rating}`),
              h("td", {}, `${e.deviation}`),
              h("td", {}, `${e.games}`),
            ),
          ),
        ),
      )
    : h("p", {}, "No established ratings in this pool yet.");
  const more = body.next_cursor
    ? h(
        "p",
        {},
        h("a", { href: `#/leaderboard?rules=${rules}&start=${start}&cursor=${encodeURIComponent(body.next_cursor)}` }, "Next page"),
      )
    : "";
  show(
    h(
      "section",
      { "aria-labelledby": "leaderboard-title" },
      h("h2", { id: "leaderboard-title" }, `Leaderboard: ${poolWords(rules, start)}`),
      h(
        "p",
        { class: "hint" },
        "Established ratings (deviation under 110) of players with a rated game in the pool within a year.",
      ),
      chooser,
      table,
      more,
    ),
  );
}
