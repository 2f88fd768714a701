// The kingpost web client: a page that plays correspondence games through
// the public API alone (see api.js), with no chess rules of its own.
// #/ is the lobby, #/games/{id} a game, #/rules/{key} the rules of a game;
// #/collections, #/collections/{id}, #/search and #/study/{id} the archive;
// #/users/{name} a profile and #/leaderboard a pool's leaderboard;
// #/tournaments and #/tournaments/{id} the tournaments and team matches;
// #/teams and #/teams/{id} the teams.

import { ApiError, act, call, listen, session, signIn, signOut, signUp } from "./api.js";
import { miniBoard } from "./board.js";
import { announce, h, nextVisit, show } from "./dom.js";
import { GameView } from "./game.js";
import { botMark, leaderboardPage, profileLink, profilePage } from "./players.js";
import { rulesLink, rulesPage } from "./rules.js";
import { StudyView, collectionPage, collectionsPage, searchPage } from "./study.js";
import { applyTheme, themeSwitch } from "./theme.js";
import { teamPage, teamsPage } from "./teams.js";
import { timeFields } from "./time.js";
import { tournamentPage, tournamentsPage } from "./tournaments.js";
import { loadVariants, variantOf, variantWords, variants } from "./variants.js";
import { clockWords, daysPerMoveWords, describe, resultWords, startKindWords, startWords, timeLeft } from "./words.js";

// ---- routing ----

// Each visit of a page has its own signal, aborted when the next begins:
// its requests stop and its late answers draw nothing.
let visit = new AbortController();

async function route() {
  visit.abort();
  visit = new AbortController();
  const signal = visit.signal;
  // The old view stays in sight, greyed and inert, until the new one is drawn.
  nextVisit();
  renderHeader();
  const hash = location.hash;
  const game = hash.match(/^#\/games\/([A-Za-z0-9_-]+)$/);
  const rules = hash.match(/^#\/rules(?:\/([a-z-]+))?$/);
  const collection = hash.match(/^#\/collections\/([A-Za-z0-9_-]+)$/);
  const study = hash.match(/^#\/study\/([A-Za-z0-9_-]+)$/);
  const search = hash.match(/^#\/search(?:\?(.*))?$/);
  const user = hash.match(/^#\/users\/([^/?]+)(?:\?(.*))?$/);
  const leaderboard = hash.match(/^#\/leaderboard(?:\?(.*))?$/);
  const tournaments = hash.match(/^#\/tournaments(?:\?(.*))?$/);
  const tournament = hash.match(/^#\/tournaments\/([A-Za-z0-9_-]+)$/);
  const team = hash.match(/^#\/teams\/([A-Za-z0-9_-]+)$/);
  const verification = hash.match(/^#\/verify-email\/([A-Za-z0-9]+)$/);
  const reset = hash.match(/^#\/reset-password\/([A-Za-z0-9]+)$/);
  const challengeTo = hash.match(/^#\/challenge\/([^/?]+)$/);
  try {
    // Every page may name the rule sets: they are read first, once.
    await loadVariants(signal);
    if (rules) show(...(await rulesPage(rules[1], signal)));
    else if (verification) await verifyEmailPage(verification[1]);
    else if (reset) resetPasswordPage(reset[1]);
    else if (hash === "#/forgot-password") forgotPasswordPage();
    else if (session.get() && hash === "#/account") await accountPage(signal);
    else if (!session.get()) showSignIn();
    else if (game) await new GameView(game[1], signal, countMyTurns).load();
    else if (hash === "#/collections") await collectionsPage(signal);
    else if (collection) await collectionPage(collection[1], signal);
    else if (study) await new StudyView(study[1], signal).load();
    else if (search) await searchPage(search[1], signal);
    else if (user) await profilePage(decodeURIComponent(user[1]), user[2], signal);
    else if (leaderboard) await leaderboardPage(leaderboard[1], signal);
    else if (tournaments) await tournamentsPage(tournaments[1], signal);
    else if (tournament) await tournamentPage(tournament[1], signal);
    else if (hash === "#/teams") await teamsPage(signal);
    else if (team) await teamPage(team[1], signal);
    else await showLobby(signal, challengeTo ? decodeURIComponent(challengeTo[1]) : "");
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
    h("a", { href: "#/rules" }, "Rules"),
    current
      ? h(
          "span",
          {},
          " ",
          h("a", { href: "#/collections" }, "Study"),
          " ",
          h("a", { href: "#/search" }, "Search"),
          " ",
          h("a", { href: "#/leaderboard" }, "Leaderboard"),
          " ",
          h("a", { href: "#/tournaments" }, "Tournaments"),
          " ",
          h("a", { href: "#/teams" }, "Teams"),
        )
      : "",
    current
      ? h(
          "span",
          {},
          " Signed in as ",
          profileLink(current.username),
          " ",
          h("a", { href: "#/account" }, "Account"),
          " ",
          h("button", { type: "button", onclick: () => (signOut(), announce(""), route()) }, "Sign out"),
        )
      : "",
    themeSwitch(),
  );
  if (!current) document.title = "kingpost";
}

/** The tab's title counts the games awaiting the player's move. */
function showMyTurns(count) {
  document.title = count > 0 ? `(${count}) Your move – kingpost` : "kingpost";
}

async function countMyTurns() {
  try {
    const { body } = await call("GET", "/games?limit=1");
    showMyTurns(body.my_turn_count);
  } catch {
    // The title keeps its count until the next change.
  }
}

// ---- signing in ----

function showSignIn() {
  show(
    h("p", { class: "intro" }, "Correspondence chess and four variants, one move per day or week. ",
      rulesLink("standard", "Read the rules"), "."),
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
  const remember = h("input", { name: "remember", type: "checkbox" });
  const error = h("p", { class: "error", role: "alert" });
  return h(
    "form",
    {
      "aria-label": title,
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          await action(username.value, password.value, remember.checked);
          await route(); // to the page asked for, or the lobby
        } catch (e) {
          error.textContent = describe(e);
        }
      },
    },
    h("h2", {}, title),
    h("label", {}, "Username", username),
    h("label", {}, "Password", password),
    h("label", { class: "setting" }, remember, "Keep me signed in on this device (every tab, 30 days)"),
    h("button", { type: "submit" }, title),
    passwordKind === "current-password" ? h("p", {}, h("a", { href: "#/forgot-password" }, "Forgot your password?")) : "",
    error,
  );
}

// ---- the lobby: games, challenges, vacation ----

/** The lobby; `opponent` fills the challenge form's opponent (a
 * profile's "Challenge" link). */
async function showLobby(signal, opponent = "") {
  const lists = h("div", { class: "lists" });
  // Events come in bursts (a challenge accepted starts a game): the lists
  // are read once for each burst.
  let pending = null;
  const refresh = () => {
    clearTimeout(pending);
    pending = setTimeout(() => refreshLists(lists, signal).catch(() => {}), 200);
  };
  // Challenges and moves arrive as events: each refreshes the lists (not
  // the form, which may be half filled in). The lists are read once the
  // stream is open, so that nothing falls between the two; a stream that
  // does not open in a few seconds leaves the lists without live updates.
  const open = listen(signal, (event) => {
    if (event.type === "challenge_declined") announce("A challenge of yours was declined.");
    refresh();
  });
  await Promise.race([open, new Promise((resolve) => setTimeout(resolve, 5000))]);
  // Others' open challenges are no event of the account: a long poll of
  // the seeks brings them, begun before the lists are read, and they are
  // shown from its answer with no other read.
  await watchSeeks(signal, (seeks) => showSeeks(lists, seeks, signal));
  await refreshLists(lists, signal);
  const vacation = h("section", { class: "vacation", "aria-labelledby": "vacation-title" });
  await showVacation(vacation, signal);
  show(lists, challengeForm(opponent), vacation);
}

/**
 * Long-polls the open seeks, calling `onChange` with them each time they
 * differ from the first read; resolves once that read is done.
 */
function watchSeeks(signal, onChange) {
  return new Promise((firstRead) => {
    (async () => {
      let etag = null;
      while (!signal.aborted) {
        try {
          const answer = await call("GET", "/seeks?wait=60", {
            headers: etag ? { "If-None-Match": etag } : {},
            signal,
          });
          if (answer.status === 200) {
            if (etag !== null) onChange(answer.body.seeks);
            etag = answer.headers.get("ETag");
          }
          firstRead();
        } catch {
          firstRead();
          if (signal.aborted) break;
          await new Promise((resolve) => setTimeout(resolve, 5000));
        }
      }
    })();
  });
}

/** The challenges each lobby's lists show: its open ones change alone. */
const shownChallenges = new WeakMap();

/** Shows the open challenges of others, `seeks`, in the lists' challenges. */
function showSeeks(lists, seeks, signal) {
  const shown = lists.querySelector("section[aria-labelledby=challenges-title]");
  const challenges = shownChallenges.get(lists);
  if (!shown || !challenges) return;
  const now = { ...challenges, open: seeks };
  shownChallenges.set(lists, now);
  shown.replaceWith(challengeSection(now, session.get().username, () => refreshLists(lists, signal)));
}

async function refreshLists(lists, signal) {
  const [ongoing, finished, challenges] = await Promise.all([
    call("GET", "/games", { signal }),
    call("GET", "/games?status=finished&limit=20", { signal }),
    call("GET", "/challenges", { signal }),
  ]);
  const me = session.get().username;
  shownChallenges.set(lists, challenges.body);
  showMyTurns(ongoing.body.my_turn_count);
  // Your move first, each group soonest deadline first (the server's order).
  const games = [...ongoing.body.games].sort((a, b) => Number(b.my_turn) - Number(a.my_turn));
  lists.replaceChildren(
    h(
      "section",
      { "aria-labelledby": "games-title" },
      h("h2", { id: "games-title" }, `Your games (${ongoing.body.my_turn_count} to move)`),
      games.length > FILTER_FROM ? gameFilter(lists) : null,
      gameList(games, me, "No games in progress: challenge someone below.", { boards: true }),
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

/** Games past which the lobby offers to find one by name: more than a
 * screenful of boards. */
const FILTER_FROM = 8;

/** A field that shows only the games whose entry holds what is typed (an
 * opponent, a rule set); kept in `lists` across the lists' refreshes. */
function gameFilter(lists) {
  const field = h("input", { type: "search", name: "find", value: lists.dataset.find ?? "", autocomplete: "off" });
  const apply = () => {
    lists.dataset.find = field.value;
    const wanted = field.value.trim().toLowerCase();
    for (const item of lists.querySelectorAll("section[aria-labelledby=games-title] ul.games > li"))
      item.hidden = wanted !== "" && !item.textContent.toLowerCase().includes(wanted);
  };
  field.addEventListener("input", apply);
  // Applied once the list beside it is drawn.
  queueMicrotask(apply);
  return h("label", { class: "find" }, "Find a game", field);
}

/** Games as a list; with `boards`, each with its position from the
 * player's side. */
function gameList(games, me, empty, { boards = false } = {}) {
  if (games.length === 0) return h("p", {}, empty);
  return h(
    "ul",
    { class: boards ? "games boards" : "games" },
    games.map((game) => {
      const them = game.white.username === me ? game.black : game.white;
      const opponent = them.username;
      let state;
      if (game.status !== "started") state = resultWords(game);
      else if (game.my_turn) state = `Your move, ${timeLeft(game.deadline)}`;
      else state = `${opponent} to move`;
      const flipped = game.black.username === me;
      const about = [
        h("a", { href: `#/games/${game.id}` }, `${variantWords(game)} against ${opponent}`),
        them.bot ? botMark() : null,
        h("span", { class: "start" }, startWords(game.start)),
        h("span", { class: "state" }, state),
      ];
      if (!boards) return h("li", { class: game.my_turn ? "my-turn" : "" }, about);
      return h(
        "li",
        { class: game.my_turn ? "my-turn" : "" },
        h("div", { class: "board thumb", "aria-hidden": "true" }, miniBoard(game.fen, { flipped })),
        h("div", { class: "about" }, about),
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
        `${variantWords(challenge)} (${startWords(challenge.start)}), `,
        challenge.clock ? clockWords(challenge.clock) : daysPerMoveWords(challenge.days_per_move),
        ", ",
        challenge.challenger.username === me
          ? `to ${challenge.opponent?.username ?? "anyone"}`
          : `from ${challenge.challenger.username}`,
        (challenge.challenger.username === me ? challenge.opponent : challenge.challenger)?.bot ? [" ", botMark()] : null,
        `, challenger plays ${challenge.color}, ${challenge.rated ? "rated" : "casual"}`,
        challenge.rating_range ? `, for ratings ${challenge.rating_range.min} to ${challenge.rating_range.max}` : "",
      ),
      ...buttons,
    );
  const button = (label, action) =>
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await action();
          } catch (error) {
            announce(describe(error));
          }
        },
      },
      label,
    );
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

/** The form of a new challenge; `named` fills in its opponent. */
function challengeForm(named = "") {
  const rules = h(
    "select",
    { name: "rules" },
    variants().map((v) => h("option", { value: v.key }, v.title)),
  );
  const start = h("select", { name: "start" });
  const startId = h("input", { name: "start-id", type: "number", min: 0, placeholder: "random" });
  const fen = h("input", { name: "fen", placeholder: "extended FEN", spellcheck: "false" });
  const idField = h("label", {}, "Array number", startId);
  const fenField = h("label", {}, "FEN", fen);
  const link = h("p", { class: "rules-for" });
  const syncStarts = () => {
    const variant = variantOf(rules.value);
    start.replaceChildren(
      ...variant.starts.map((s) => h("option", { value: s }, startKindWords(s))),
    );
    link.replaceChildren(rulesLink(variant.key));
    syncFields();
  };
  const syncFields = () => {
    idField.hidden = !["chess960", "shuffle"].includes(start.value);
    fenField.hidden = start.value !== "fen";
    // Rated only from the starts the server rates.
    const variant = variantOf(rules.value);
    ratedField.hidden = !variant.rated_starts.includes(start.value);
    syncRange();
  };
  rules.addEventListener("change", syncStarts);
  start.addEventListener("change", syncFields);
  const time = timeFields();
  const color = h(
    "select",
    { name: "color" },
    ["random", "white", "black"].map((c) => h("option", { value: c }, c)),
  );
  const opponent = h("input", { name: "opponent", placeholder: "anyone", autocomplete: "off", value: named });
  const rated = h("input", { name: "rated", type: "checkbox" });
  const ratedField = h("label", { class: "setting" }, rated, "Rated");
  // A seek: an open challenge may name the acceptor's rating range.
  const rangeMin = h("input", { name: "rating-min", type: "number", min: 0, max: 4000, placeholder: "any" });
  const rangeMax = h("input", { name: "rating-max", type: "number", min: 0, max: 4000, placeholder: "any" });
  const rangeField = h("fieldset", { class: "range" }, h("legend", {}, "Opponent's rating"),
    h("label", {}, "Lowest", rangeMin), h("label", {}, "Highest", rangeMax));
  const syncRange = () => {
    const variant = variantOf(rules.value);
    rangeField.hidden = !variant.rated_starts.includes(start.value) || opponent.value.trim() !== "";
  };
  opponent.addEventListener("input", syncRange);
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
          color: color.value,
          rated: !ratedField.hidden && rated.checked,
          ...time.value(),
        };
        if (opponent.value.trim()) body.opponent = opponent.value.trim();
        if (!rangeField.hidden && (rangeMin.value !== "" || rangeMax.value !== ""))
          body.rating_range = {
            min: rangeMin.value === "" ? 0 : Number(rangeMin.value),
            max: rangeMax.value === "" ? 4000 : Number(rangeMax.value),
          };
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
    link,
    h("label", {}, "Start", start),
    idField,
    fenField,
    time.fields,
    h("label", {}, "Your colour", color),
    h("label", {}, "Opponent", opponent),
    rangeField,
    ratedField,
    h("button", { type: "submit" }, "Send challenge"),
    error,
  );
  syncStarts();
  return h("section", {}, form);
}

/** The vacation balance, and starting or ending a vacation. */
/** The account's settings: where mail goes. */
async function accountPage(signal) {
  const mail = h("section", { class: "email", "aria-labelledby": "email-title" });
  const notices = h("section", { class: "notices", "aria-labelledby": "notices-title" });
  const push = h("section", { class: "push", "aria-labelledby": "push-title" });
  await Promise.all([showEmail(mail, signal), showNotificationSettings(notices, signal), showPushSection(push, signal)]);
  show(h("h2", {}, "Your account"), mail, notices, push, passwordSection(), deletionSection());
}

// What each event is, in the settings' words.
const NOTICE_WORDS = {
  challenge_received: "A challenge to you",
  game_started: "A game starts",
  opponent_moved: "Your opponent moved",
  draw_offered: "A draw is offered",
  message_received: "A message from your opponent",
  deadline_near: "Your deadline is near",
  game_finished: "A game ended",
  tournament_started: "A tournament of yours starts",
  challenge_accepted: "Your challenge is accepted",
  challenge_declined: "Your challenge is declined",
  rating_changed: "Your rating changed",
  tournament_joined: "Someone joins your tournament",
  tournament_round: "A new round of your Swiss",
  tournament_finished: "A tournament of yours finishes",
  team_invited: "A captain invites you to a team",
  team_match_started: "A team match of yours starts",
  team_match_finished: "A team match of yours finishes",
};

/** Which events are mailed and pushed, and when mail goes: at once or in a
 * daily digest. */
async function showNotificationSettings(section, signal) {
  const current = (await call("GET", "/account/notifications", { signal })).body;
  const box = (channel, kind, text, chosen) => {
    const input = h("input", { type: "checkbox", name: channel, value: kind, "aria-label": `${channel === "email" ? "E-mail" : "Push"}: ${text}` });
    input.checked = chosen.includes(kind);
    return h("td", {}, input);
  };
  const rows = Object.entries(NOTICE_WORDS).map(([kind, text]) =>
    h("tr", {}, h("th", { scope: "row" }, text), box("email", kind, text, current.email_events), box("push", kind, text, current.push_events)),
  );
  const delivery = (value, text) => {
    const radio = h("input", { type: "radio", name: "delivery", value });
    radio.checked = current.email_delivery === value;
    return h("label", { class: "setting" }, radio, text);
  };
  const hour = h(
    "select",
    { name: "hour" },
    ...Array.from({ length: 24 }, (_, n) => h("option", { value: String(n) }, `${String(n).padStart(2, "0")}:00`)),
  );
  hour.value = String(current.digest_hour);
  // A player who never chose one is offered the zone their browser is in.
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zone = h("input", { name: "time_zone", autocomplete: "off", spellcheck: "false", required: true });
  zone.value = current.time_zone === "UTC" && browserZone ? browserZone : current.time_zone;
  const save = async (event) => {
    event.preventDefault();
    const chosen = (name) => [...section.querySelectorAll(`input[name=${name}]:checked`)].map((input) => input.value);
    try {
      await call("PUT", "/account/notifications", {
        body: {
          email_events: chosen("email"),
          push_events: chosen("push"),
          email_delivery: chosen("delivery")[0],
          digest_hour: Number(hour.value),
          time_zone: zone.value.trim(),
        },
      });
      announce("Notification settings saved.");
      await showNotificationSettings(section, signal);
    } catch (error) {
      announce(describe(error));
    }
  };
  const next = current.next_digest_at
    ? new Date(current.next_digest_at).toLocaleString(undefined, { timeZone: current.time_zone, dateStyle: "full", timeStyle: "short" })
    : null;
  section.replaceChildren(
    h("h2", { id: "notices-title" }, "Notifications"),
    h("p", {}, "E-mail goes to your confirmed address, with a link in every mail that stops it in one click; push goes to the browsers you turn it on in below."),
    h(
      "form",
      { onsubmit: save, "aria-label": "Notifications" },
      h(
        "table",
        { class: "channels" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Tell me when"), h("th", { scope: "col" }, "E-mail"), h("th", { scope: "col" }, "Push"))),
        h("tbody", {}, ...rows),
      ),
      h(
        "fieldset",
        {},
        h("legend", {}, "E-mail comes"),
        delivery("immediate", "At once (ten an hour at most; then one summary at the hour's end)"),
        delivery("digest", "Once a day: every game to move, and what happened"),
        h("label", {}, "Daily mail at ", hour),
        h("label", {}, "Time zone ", zone),
      ),
      next ? h("p", {}, `Next summary: ${next} (${current.time_zone}).`) : "",
      h("button", { type: "submit" }, "Save notifications"),
    ),
  );
}

/** Push in this browser: asked for from a button, never on load. */
async function showPushSection(section, signal) {
  const title = h("h2", { id: "push-title" }, "Push in this browser");
  const say = (...text) => section.replaceChildren(title, h("p", {}, ...text));
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return say("This browser cannot receive push notifications.");
  }
  let key;
  try {
    key = (await call("GET", "/push/public-key", { signal, auth: false })).body.public_key;
  } catch (error) {
    return say(describe(error));
  }
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = await registration?.pushManager.getSubscription();
  const turnOn = async () => {
    try {
      if ((await Notification.requestPermission()) !== "granted") {
        return announce("Notifications are blocked for this page in the browser's settings.");
      }
      const worker = await navigator.serviceWorker.register("/sw.js");
      await navigator.serviceWorker.ready;
      const made = await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
      await call("POST", "/push-subscriptions", { body: made.toJSON() });
      announce("Push is on in this browser.");
    } catch (error) {
      announce(error instanceof ApiError ? describe(error) : `This browser could not subscribe: ${error.message}`);
    }
    await showPushSection(section, signal);
  };
  const turnOff = async () => {
    try {
      const { body } = await call("GET", "/push-subscriptions");
      const mine = body.subscriptions.find((s) => s.endpoint === subscription.endpoint);
      if (mine) await call("DELETE", `/push-subscriptions/${mine.id}`);
      await subscription.unsubscribe();
      announce("Push is off in this browser.");
    } catch (error) {
      announce(describe(error));
    }
    await showPushSection(section, signal);
  };
  section.replaceChildren(
    title,
    subscription
      ? h("p", {}, "On: the events chosen for push above appear here as notifications.")
      : h("p", {}, "Off: turn it on to be told of your games here, even with the page closed."),
    subscription
      ? h("button", { type: "button", onclick: turnOff }, "Turn push off")
      : h("button", { type: "button", onclick: turnOn }, "Turn push on in this browser"),
  );
}

/** A new password, from the current one: other devices are signed out. */
function passwordSection() {
  const current = h("input", { type: "password", name: "current", autocomplete: "current-password", required: true });
  const next = h("input", { type: "password", name: "new", autocomplete: "new-password", required: true });
  const change = async (event) => {
    event.preventDefault();
    try {
      await call("PUT", "/account/password", {
        body: { current_password: current.value, new_password: next.value },
      });
      current.value = next.value = "";
      announce("Password changed: your other devices are signed out.");
    } catch (error) {
      announce(describe(error));
    }
  };
  return h(
    "section",
    { class: "password", "aria-labelledby": "password-title" },
    h("h2", { id: "password-title" }, "Password"),
    h(
      "form",
      { onsubmit: change, "aria-label": "Change password" },
      h("label", {}, "Current password ", current),
      h("label", {}, "New password ", next),
      h("button", { type: "submit" }, "Change password"),
    ),
  );
}

/**
 * Deleting the account, with its password and the username typed again:
 * its games stay with the opponents under the name [deleted].
 */
function deletionSection() {
  const username = session.get().username;
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const typed = h("input", { name: "confirm", autocomplete: "off", required: true, spellcheck: "false" });
  const remove = async (event) => {
    event.preventDefault();
    if (typed.value.trim().toLowerCase() !== username.toLowerCase()) {
      announce(`Type your username, ${username}, to confirm.`);
      return;
    }
    try {
      await call("DELETE", "/account", { body: { password: password.value } });
      signOut();
      announce("Your account is deleted.");
      location.hash = "#/";
    } catch (error) {
      announce(describe(error));
    }
  };
  return h(
    "section",
    { class: "deletion", "aria-labelledby": "deletion-title" },
    h("h2", { id: "deletion-title" }, "Delete your account"),
    h(
      "p",
      {},
      "Your games under way are resigned (or aborted before both sides have moved), you leave your tournaments, " +
        "and your collections, settings and sign-ins are deleted. The games you played stay with your opponents, " +
        "shown as played by [deleted]. This cannot be undone.",
    ),
    h(
      "form",
      { onsubmit: remove, "aria-label": "Delete account" },
      h("label", {}, "Password ", password),
      h("label", {}, `Type your username (${username}) `, typed),
      h("button", { type: "submit", class: "danger" }, "Delete my account"),
    ),
  );
}

/** "Forgot password": a link goes to the account's confirmed address. */
function forgotPasswordPage() {
  const login = h("input", { name: "login", autocomplete: "username", required: true });
  const said = h("p", { role: "status" });
  const ask = async (event) => {
    event.preventDefault();
    try {
      await call("POST", "/account/password-reset", { body: { login: login.value.trim() }, auth: false });
      said.textContent =
        "If an account with a confirmed address matches, a link to choose a new password is on its way. It serves once, within an hour.";
    } catch (error) {
      said.textContent = describe(error);
    }
  };
  show(
    h("h2", {}, "Forgot your password?"),
    h(
      "form",
      { onsubmit: ask, "aria-label": "Forgot password" },
      h("label", {}, "Username or e-mail address ", login),
      h("button", { type: "submit" }, "Mail me a link"),
    ),
    said,
    h("p", {}, h("a", { href: "#/" }, "Back to signing in")),
  );
}

/** A reset link followed: the new password, once. */
function resetPasswordPage(token) {
  const password = h("input", { type: "password", name: "password", autocomplete: "new-password", required: true });
  const error = h("p", { class: "error", role: "alert" });
  const reset = async (event) => {
    event.preventDefault();
    try {
      await call("POST", "/account/password-reset/confirm", {
        body: { token, new_password: password.value },
        auth: false,
      });
      show(h("h2", {}, "Password changed"), h("p", {}, "Sign in with your new password."), h("p", {}, h("a", { href: "#/" }, "Sign in")));
    } catch (e) {
      error.textContent = describe(e);
    }
  };
  show(
    h("h2", {}, "Choose a new password"),
    h(
      "form",
      { onsubmit: reset, "aria-label": "Reset password" },
      h("label", {}, "New password ", password),
      h("button", { type: "submit" }, "Save the new password"),
    ),
    error,
  );
}

/** The address mail goes to, and a form to give one (a link confirms it). */
async function showEmail(section, signal) {
  const current = (await call("GET", "/account/email", { signal })).body;
  const address = h("input", { type: "email", name: "email", autocomplete: "email", required: true });
  address.value = current.address ?? "";
  const save = async (event) => {
    event.preventDefault();
    try {
      await call("PUT", "/account/email", { body: { address: address.value } });
      announce(`A link is on its way to ${address.value}: open it to confirm the address.`);
      await showEmail(section, signal);
    } catch (error) {
      announce(describe(error));
    }
  };
  section.replaceChildren(
    h("h2", { id: "email-title" }, "E-mail"),
    h(
      "p",
      {},
      current.address === null
        ? "No address yet. Mail is sent to an address only once you have confirmed it."
        : current.verified
          ? `Mail goes to ${current.address}.`
          : `${current.address} waits for you to open the link mailed to it; nothing else is sent there until then.`,
    ),
    h("form", { onsubmit: save }, h("label", {}, "Address ", address), h("button", { type: "submit" }, "Save address")),
  );
}

/** A verification link followed: the address it was mailed to is confirmed. */
async function verifyEmailPage(token) {
  try {
    await call("POST", "/account/email/verify", { body: { token }, auth: false });
    show(h("h2", {}, "Address confirmed"), h("p", {}, "Thank you: kingpost's mail will reach you there."), h("p", {}, h("a", { href: "#/" }, "To your games")));
  } catch (error) {
    show(h("h2", {}, "Not confirmed"), h("p", { class: "error", role: "alert" }, describe(error)));
  }
}

async function showVacation(section, signal) {
  const { body } = await call("GET", "/account/vacation", { signal });
  const change = (method, done) => async () => {
    try {
      await call(method, "/account/vacation");
      announce(done);
      await showVacation(section, signal);
    } catch (error) {
      announce(describe(error));
    }
  };
  const days = body.balance_days.toFixed(1);
  section.replaceChildren(
    h("h2", { id: "vacation-title" }, "Vacation"),
    h(
      "p",
      {},
      body.on_vacation
        ? `You are on vacation since ${new Date(body.since).toLocaleString()}: your clocks stand still. ${days} days left.`
        : `${days} days of vacation left (${body.yearly_allowance_days} a year, up to ${body.cap_days}). While on vacation your clocks stand still in every game.`,
    ),
    body.on_vacation
      ? h("button", { type: "button", onclick: change("DELETE", "Vacation ended.") }, "End vacation")
      : h(
          "button",
          {
            type: "button",
            disabled: body.balance_days <= 0,
            onclick: change("POST", "Vacation started."),
          },
          "Start vacation",
        ),
  );
}

window.addEventListener("hashchange", route);
// A session remembered in another tab signs this one in or out too.
window.addEventListener("storage", (event) => {
  if (event.key === "kingpost.session" && (event.newValue === null) !== (event.oldValue === null))
    route();
});
if (!location.hash) history.replaceState(null, "", "#/");
applyTheme();
route();
