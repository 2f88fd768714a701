// Two players in two browser contexts (one desktop, one phone-sized) use
// the web client at / to sign up, challenge, accept and play games of
// every rule set, by clicks, the keyboard and typed moves; each board is
// saved as a screenshot in $ARTEFACTS.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { chromium } from "playwright-core";

const BASE = process.env.KINGPOST_URL;
const OUT = process.env.ARTEFACTS;
const PASSWORD = "correct horse battery staple";
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM });

function step(text) {
  console.log(`- ${text}`);
}

/** A player in a browser of their own, at an address of their own (told to
 * the server as a trusted proxy would), as players are. */
async function player(name, viewport, address) {
  const context = await browser.newContext({
    viewport,
    extraHTTPHeaders: { "X-Forwarded-For": address },
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on("pageerror", (e) => problems.push(`${name}: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`${name}: ${m.text()}`));
  page.on("dialog", (d) => d.accept());
  page.on("console", (m) => m.type() === "log" && console.log(`  [${name}] ${m.text()}`));
  await page.goto(`${BASE}/`);
  return { name, page, problems, context };
}

async function authenticate(p, form, { remember = false } = {}) {
  const fields = p.page.getByRole("form", { name: form });
  await fields.getByLabel("Username").fill(p.name);
  await fields.getByLabel("Password").fill(PASSWORD);
  if (remember) await fields.getByLabel("Keep me signed in").check();
  await fields.getByRole("button", { name: form }).click();
  await p.page.getByText(`Signed in as ${p.name}`).waitFor();
}

/** Waits until the page has drawn a view after the one on show now. */
async function afterNextView(p, action) {
  const before = Number(await p.page.locator("main").getAttribute("data-visit"));
  await action();
  await p.page.waitForFunction(
    (n) => Number(document.querySelector("main").dataset.visit) > n,
    before,
  );
}

/** Goes to a view of the page without reloading it, as its links do. */
async function visitHash(p, hash) {
  await p.page.evaluate((h) => (location.hash = h), hash);
}

async function toLobby(p) {
  if (!p.page.url().endsWith("#/")) {
    await afterNextView(p, () => p.page.getByRole("link", { name: "kingpost" }).click());
  }
  await p.page.getByRole("form", { name: "New challenge" }).waitFor();
}

async function challenge(p, { rules, start, fen, color, opponent, rated }) {
  await toLobby(p);
  const form = p.page.getByRole("form", { name: "New challenge" });
  await form.getByLabel("Rules").selectOption(rules);
  await form.getByLabel("Start").selectOption(start);
  if (fen) await form.getByLabel("FEN", { exact: true }).fill(fen);
  await form.getByLabel("Your colour").selectOption(color);
  await form.getByLabel("Opponent").fill(opponent.name);
  if (rated) await form.getByLabel("Rated").check();
  await form.getByRole("button", { name: "Send challenge" }).click();
  await p.page.getByRole("status").getByText("Challenge sent.").waitFor();
}

/** The challenged player accepts from the lobby, which learnt of the
 * challenge from the event stream; the challenger opens the new game from
 * its lobby, refreshed the same way. */
async function startGame(challenger, opponent, options, variant) {
  await toLobby(opponent);
  await challenge(challenger, { ...options, opponent });
  const row = opponent.page.locator("ul.challenges li", { hasText: variant });
  await row.getByRole("button", { name: "Accept" }).first().click();
  await opponent.page.locator("section.game").waitFor();
  const id = opponent.page.url().split("/").pop();
  await afterNextView(challenger, () => visitHash(challenger, `#/games/${id}`));
  await challenger.page.locator("section.game").waitFor();
  return id;
}

/** The page on show, at a 390 px phone's width, is no wider than the
 * screen (a table may scroll within itself); the desktop size after. */
async function fitsAPhone(p, what, file = `phone-${p.name}`) {
  const desktop = p.page.viewportSize();
  await p.page.setViewportSize({ width: 390, height: 844 });
  const width = await p.page.evaluate(() => document.documentElement.scrollWidth);
  await p.page.screenshot({ path: `${OUT}/${file}.png` });
  await p.page.setViewportSize(desktop);
  assert(width <= 390, `${what} fits a 390 px phone screen (page is ${width} px wide)`);
}

const square = (p, name) => p.page.locator(`.board:not(.small) [data-square="${name}"]`);

async function seesMove(p, san) {
  const exact = new RegExp(`^${san.replace(/[+=]/g, "\\$&")}`);
  await p.page.locator("ol.moves .san", { hasText: exact }).first().waitFor();
}

/** The mover's page shows the move at once; the opponent's learns of it
 * by its long poll, without a reload. */
async function bothSee(p, opponent, san) {
  await seesMove(p, san);
  await seesMove(opponent, san);
}

/** Confirms the move picked, when the player has confirmation on. */
async function confirm(p, words) {
  const bar = p.page.getByRole("group", { name: "Confirm the move" });
  if (words) await bar.getByText(words).waitFor();
  await bar.getByRole("button", { name: "Confirm move" }).click();
}

async function clickMove(p, from, to, san, opponent, { confirmed = true, choice } = {}) {
  await square(p, from).click();
  await square(p, to).click();
  if (choice) await p.page.getByRole("dialog").getByRole("button", { name: choice }).click();
  if (confirmed) await confirm(p);
  await bothSee(p, opponent, san);
}

/** A move tried on the analysis board: shown there at once, never sent. */
async function analysisMove(p, from, to, san) {
  await square(p, from).click();
  await square(p, to).click();
  await p.page.locator(".analysis-line .san.current", { hasText: san }).waitFor();
}

/** An account made a BOT through the API, as a bot's program does. */
async function makeBot(name) {
  const send = async (path, body, token) => {
    const answer = await fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return answer.json();
  };
  await send("/api/v1/accounts", { username: name, password: PASSWORD });
  const { access_token } = await send("/api/v1/auth/token", { grant_type: "password", username: name, password: PASSWORD });
  const { token } = await send("/api/v1/tokens", { name: "engine", scopes: ["bot:play"] }, access_token);
  await send("/api/bot/account/upgrade", undefined, token);
}

async function typeMove(p, san, opponent, { confirmed = true } = {}) {
  const entry = p.page.getByRole("form", { name: "Type a move" });
  await entry.getByLabel("Move").fill(san);
  await entry.getByRole("button", { name: "Play" }).click();
  if (confirmed) await confirm(p);
  await bothSee(p, opponent, san);
}

async function showState(text, ...players) {
  for (const p of players) await p.page.locator("p.state", { hasText: text }).waitFor();
}

async function classes(p, name) {
  return (await square(p, name).getAttribute("class")).split(" ");
}

async function isTarget(p, name) {
  return (await classes(p, name)).includes("target");
}

/** The choices the page offers for the squares just picked, in words. */
async function choices(p) {
  const dialog = p.page.getByRole("dialog", { name: "Choose the move" });
  await dialog.waitFor();
  return (await dialog.getByRole("button").allTextContents()).filter((t) => t !== "Cancel");
}

async function screenshot(file, ...players) {
  for (const p of players) {
    // Nothing left to redraw the page under the camera.
    await p.page.locator("section.game:not([data-loading])").waitFor();
    await p.page.locator(".board").first().screenshot({ path: `${OUT}/${file}-board-${p.name}.png` });
    await p.page.screenshot({ path: `${OUT}/${file}-${p.name}.png`, fullPage: true });
  }
}

const alice = await player("alice", { width: 1200, height: 900 }, "198.51.100.1");
const bob = await player("bob", { width: 390, height: 844 }, "198.51.100.2");

// On a failure, what each page showed: its status line and a screenshot.
process.on("uncaughtException", async (error) => {
  console.error(error);
  for (const p of [alice, bob]) {
    console.error(`${p.name} at ${p.page.url()}: ${await p.page.locator("#status").textContent()}`);
    console.error(p.problems.join("\n"));
    await p.page.screenshot({ path: `${OUT}/failure-${p.name}.png`, fullPage: true });
  }
  process.exit(1);
});

step("the rules of every rule set, each with its diagrams, on both screens");
for (const [key, title] of [
  ["standard", "Chess"],
  ["teleporting-kings", "Teleporting Kings"],
  ["switching", "Switching"],
  ["captive-kings", "Captive Kings"],
  ["bunker-leap", "King to Bunker Leap"],
]) {
  for (const p of [alice, bob]) {
    await afterNextView(p, () => visitHash(p, `#/rules/${key}`));
    await p.page.getByRole("heading", { level: 2, name: title }).waitFor();
    const diagrams = await p.page.locator("figure.diagram .board .square").count();
    assert(diagrams >= 64, `${key}: a diagram drawn (${diagrams} squares)`);
    await p.page.screenshot({ path: `${OUT}/rules-${key}-${p.name}.png`, fullPage: true });
  }
  // Diagrams are boards too: a1 dark, h1 light.
  const first = alice.page.locator("figure.diagram").first();
  assert.match(await first.locator('[data-square="a1"]').getAttribute("class"), /\bdark\b/);
  assert.match(await first.locator('[data-square="h1"]').getAttribute("class"), /\blight\b/);
}
await afterNextView(alice, () => visitHash(alice, "#/"));
await afterNextView(bob, () => visitHash(bob, "#/"));

step("a wrong password, then a lockout, in words (from an address of its own)");
{
  // Behind the trusted proxy the server is told of another address: its
  // sign-in budget is its own.
  const context = await browser.newContext({ extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.9" } });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  const form = page.getByRole("form", { name: "Sign in" });
  await form.getByLabel("Username").fill("mallory");
  await form.getByLabel("Password").fill("not it");
  // Each attempt answered before the next: five failures, then the lock.
  const attempt = () =>
    Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/token")),
      form.getByRole("button", { name: "Sign in" }).click(),
    ]);
  await attempt();
  await form.getByRole("alert").getByText("Wrong username or password.").waitFor();
  for (let i = 0; i < 5; i++) await attempt();
  await form
    .getByRole("alert")
    .getByText("Too many failed sign-ins with this name from here. Try again in 15 minutes.")
    .waitFor();
  await context.close();
}

step("sign up both, sign alice out and in again, remembered");
await authenticate(alice, "Create account");
await authenticate(bob, "Create account");
await alice.page.getByRole("button", { name: "Sign out" }).click();
await alice.page.getByRole("form", { name: "Sign in" }).waitFor();
await authenticate(alice, "Sign in", { remember: true });

step("Teleporting Kings: the board's colours, a teleport marked and its right spent, a resignation");
const teleporting = await startGame(
  alice,
  bob,
  { rules: "teleporting-kings", start: "standard", color: "white" },
  "Teleporting Kings",
);
for (const p of [alice, bob]) {
  assert((await classes(p, "a1")).includes("dark"), `${p.name}: a1 is dark`);
  assert((await classes(p, "h1")).includes("light"), `${p.name}: h1 is light`);
  assert((await classes(p, "d1")).includes("light"), `${p.name}: the white queen on a light square`);
}
await square(alice, "e2").click();
await square(alice, "e4").click();
await alice.page.getByRole("button", { name: "Cancel" }).click();
assert.equal(await alice.page.locator("ol.moves .san").count(), 0, "a cancelled move is not played");
await clickMove(alice, "e2", "e4", "e4", bob);
// Bob turns confirmation off, then plays e7-e5 with Enter and the arrow keys.
await bob.page.getByLabel("Confirm each move before it is sent").uncheck();
await square(bob, "e7").focus();
await bob.page.keyboard.press("Enter");
await bob.page.keyboard.press("ArrowUp");
await bob.page.keyboard.press("ArrowUp");
assert.equal(await bob.page.evaluate(() => document.activeElement.dataset.square), "e5");
await bob.page.keyboard.press("Enter");
await bothSee(bob, alice, "e5");
// The tab's title counts the games awaiting alice's move.
await alice.page.waitForFunction(() => document.title.startsWith("(1) Your move"));
// The king's far squares come from the server's list: e3 is a teleport,
// d8 (an enemy unit) is not.
await square(alice, "e1").click();
assert(await isTarget(alice, "e3"), "e3 is offered as a teleport");
assert(!(await isTarget(alice, "d8")), "d8 is not offered");
await square(alice, "e3").click();
await confirm(alice, "Teleport, Ke3");
await bothSee(alice, bob, "Ke3");
for (const p of [alice, bob]) {
  await p.page.locator('ol.moves .mark[data-kind="teleport"]').waitFor();
  await p.page.locator(".rights", { hasText: "White's teleport: used." }).waitFor();
  await p.page.locator(".rights", { hasText: "Black's teleport: not used yet." }).waitFor();
}
// A second tab of alice's, signed in from the remembered session.
const tab = await alice.context.newPage();
await tab.goto(`${BASE}/#/games/${teleporting}`);
await tab.locator("ol.moves .san", { hasText: /^Ke3/ }).waitFor();
await tab.getByText("Signed in as alice").waitFor();
await tab.close();
// Stepping back shows the position before the teleport.
await alice.page.getByRole("button", { name: "Previous move" }).click();
await alice.page.getByText("after ply 2 of 3").waitFor();
assert.equal(await square(alice, "e1").getAttribute("aria-label"), "e1, white king");
await alice.page.getByRole("button", { name: "Current position" }).click();
await alice.page.getByText("current position").waitFor();
assert.equal(await square(alice, "e3").getAttribute("aria-label"), "e3, white king");
await alice.page.getByRole("button", { name: "Copy FEN" }).click();
await alice.page.getByRole("status").getByText("FEN copied.").waitFor();
const fen = await alice.page.evaluate(() => navigator.clipboard.readText());
assert.match(fen, /^rnbqkbnr\/pppp1ppp\/8\/4p3\/4P3\/4K3\/PPPP1PPP\/RNBQ1BNR b kq - 1 2 t$/);
await alice.page.getByRole("button", { name: "Flip board" }).click();
assert.equal(
  await alice.page.locator(".board .square").first().getAttribute("data-square"),
  "h1",
  "flipped: h1 at the top left",
);
await screenshot("teleporting-kings", alice, bob);
// The side to move's clock counts down by the board, live; the other's
// stands at the time a move has.
const ticking = alice.page.locator("[role=timer].running");
const shownFirst = await ticking.innerText();
await alice.page.waitForFunction((first) => document.querySelector("[role=timer].running")?.textContent !== first, shownFirst, { timeout: 5000 });
assert.equal(await alice.page.locator("[role=timer].running").count(), 1, "one clock runs");
const width = await bob.page.evaluate(() => document.documentElement.scrollWidth);
assert(width <= 390, `the game fits a 390 px phone screen (page is ${width} px wide)`);
await bob.page.getByRole("button", { name: "Resign" }).click();
await showState("White (alice) won: Black resigned.", bob, alice);
await alice.page.getByRole("status").getByText("White (alice) won: Black resigned.").waitFor();

step("Switching: a switch from either end, marked; castling or the switch, each chosen");
await startGame(bob, alice, { rules: "switching", start: "standard", color: "white" }, "Switching");
await clickMove(bob, "h1", "g1", "Ng1h1", alice, { confirmed: false });
await typeMove(alice, "e5", bob);
await clickMove(bob, "e2", "e4", "e4", alice, { confirmed: false });
await clickMove(alice, "a8", "b8", "Ra8b8", bob);
await alice.page.locator('ol.moves .mark[data-kind="switch"]').first().waitFor();
await screenshot("switching", alice, bob);
// RULES.md, Switching 6: castling and the king-rook switch give one
// position and are both legal: the page asks which.
await startGame(
  alice,
  bob,
  { rules: "switching", start: "fen", fen: "5kr1/5pp1/8/8/8/8/5PP1/5KR1 w Kk - 0 1", color: "white" },
  "Switching",
);
await square(alice, "f1").click();
await square(alice, "g1").click();
assert.deepEqual((await choices(alice)).sort(), ["Castle h-side, O-O", "Switch rook and king, Rg1f1"]);
await alice.page.getByRole("dialog").getByRole("button", { name: "Castle h-side, O-O" }).click();
await confirm(alice, "Castle h-side, O-O");
await bothSee(alice, bob, "O-O");
await square(bob, "g8").click();
await square(bob, "f8").click();
await bob.page.getByRole("dialog").getByRole("button", { name: "Switch rook and king, Rg8f8" }).click();
await bothSee(bob, alice, "Rg8f8");

step("King to Bunker Leap: castling or the leap, each chosen; then Pre-chess placements");
await startGame(
  alice,
  bob,
  { rules: "bunker-leap", start: "fen", fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Ll", color: "white" },
  "King to Bunker Leap",
);
await square(alice, "e1").click();
await square(alice, "g1").click();
assert.deepEqual((await choices(alice)).sort(), ["Bunker leap, Kg1", "Castle h-side, O-O"]);
await alice.page.getByRole("dialog").getByRole("button", { name: "Bunker leap, Kg1" }).click();
await confirm(alice, "Bunker leap, Kg1");
await bothSee(alice, bob, "Kg1");
await alice.page.locator('ol.moves .mark[data-kind="leap"]').waitFor();
await alice.page.locator(".rights", { hasText: "White's bunker leap: used or gone." }).waitFor();
await clickMove(bob, "e8", "g8", "O-O", alice, { confirmed: false, choice: "Castle h-side, O-O" });
await startGame(
  alice,
  bob,
  { rules: "bunker-leap", start: "prechess", color: "white" },
  "King to Bunker Leap",
);
await alice.page.locator('[data-unit="K"]').click();
assert(await isTarget(alice, "e1"), "e1 is offered for the king");
assert(!(await isTarget(alice, "e8")), "Black's first rank is not");
await square(alice, "e1").click();
await confirm(alice, "Place the king on e1, K@e1");
await bothSee(alice, bob, "K@e1");
await bob.page.locator('[data-unit="q"]').click();
await square(bob, "d8").click();
await bothSee(bob, alice, "Q@d8");
await alice.page.locator('ol.moves .mark[data-kind="placement"]').first().waitFor();
await alice.page.locator(".rights", { hasText: "White still places: queen, rook, rook" }).waitFor();
await alice.page.locator(".rights", { hasText: "White's bunker leap: comes with the array, once the placement is done." }).waitFor();
await screenshot("bunker-leap-prechess", alice, bob);

step("Captive Kings: captivity and goals in words, castling from the castler's rook");
await startGame(
  bob,
  alice,
  { rules: "captive-kings", start: "standard", color: "white" },
  "Captive Kings",
);
await clickMove(bob, "e2", "e4", "e4", alice, { confirmed: false });
await alice.page.locator(".rights", { hasText: "White wins with the king on rank 1" }).waitFor();
await alice.page.locator(".rights", { hasText: "White's king: captive." }).waitFor();
await screenshot("captive-kings", alice, bob);
await startGame(
  alice,
  bob,
  { rules: "captive-kings", start: "fen", fen: "4K3/8/8/8/8/8/8/4k2R w K - 0 1 Cc", color: "white" },
  "Captive Kings",
);
await square(alice, "h1").click();
assert(await isTarget(alice, "e1"), "castling offered from the rook, onto the enemy king");
await square(alice, "e1").click();
await confirm(alice, "Castle h-side, O-O");
await bothSee(alice, bob, "O-O");
assert.equal(await square(bob, "g1").getAttribute("aria-label"), "g1, black king");

step("castling by the king onto the rook or to its square, on usual and Chess960 rooks");
await startGame(
  alice,
  bob,
  { rules: "standard", start: "fen", fen: "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", color: "white" },
  "Chess (",
);
await clickMove(alice, "e1", "h1", "O-O", bob);
await startGame(
  alice,
  bob,
  { rules: "standard", start: "fen", fen: "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1", color: "white" },
  "Chess (",
);
await clickMove(alice, "e1", "g1", "O-O", bob);
await clickMove(bob, "e8", "b8", "O-O-O", alice, { confirmed: false });
await startGame(alice, bob, { rules: "standard", start: "chess960", color: "white" }, "Chess960");
await alice.page.locator("p.start", { hasText: /Chess960 array \d+/ }).waitFor();
await clickMove(alice, "e2", "e4", "e4", bob);
await screenshot("chess960", alice, bob);

step("an open challenge arrives live; the analysis board: moves tried for both sides and never sent, kept as a conditional line that answers when it comes");
const hana = await player("hana", { width: 1200, height: 900 }, "198.51.100.8");
const ivan = await player("ivan", { width: 390, height: 844 }, "198.51.100.9");
await authenticate(hana, "Create account");
await authenticate(ivan, "Create account");
// Hana's challenge is open to anyone: it reaches Ivan's lobby, open
// before it was made, without a reload.
await toLobby(ivan);
await challenge(hana, {
  rules: "standard",
  start: "fen",
  fen: "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
  color: "white",
  opponent: { name: "" },
});
await ivan.page.locator("ul.challenges li", { hasText: "hana" }).getByRole("button", { name: "Accept" }).click();
await ivan.page.locator("section.game").waitFor();
await afterNextView(hana, () => visitHash(hana, `#/games/${ivan.page.url().split("/").pop()}`));
await hana.page.locator("section.game").waitFor();
await clickMove(hana, "e1", "h1", "O-O", ivan);
await hana.page.getByRole("button", { name: "Analysis board" }).click();
await hana.page.locator(".analysis-banner", { hasText: "never sent" }).waitFor();
await analysisMove(hana, "e8", "c8", "O-O-O");
const keep = hana.page.getByRole("button", { name: "Keep as a conditional line" });
assert.equal(await keep.isEnabled(), false, "a line ends with her reply");
await analysisMove(hana, "g1", "h1", "Kh1");
await analysisMove(hana, "a7", "a6", "a6");
await hana.page.getByRole("button", { name: "Take back" }).click();
await hana.page.locator(".analysis-line .san.current", { hasText: "Kh1" }).waitFor();
await screenshot("analysis", hana);
await keep.click();
await hana.page.getByRole("status").getByText("Conditional line kept: if O-O-O, Kh1").waitFor();
const lines = hana.page.locator("section.conditionals");
await lines.locator(".conditional-lines li", { hasText: "if O-O-O, Kh1" }).waitFor();
await lines.getByText("Type the lines").click();
assert.equal(await lines.getByLabel("Lines").inputValue(), "O-O-O Kh1", "the lines come back in SAN");
assert.equal(await ivan.page.locator("ol.moves .san", { hasText: "O-O-O" }).count(), 0, "analysis moves are never sent");
await hana.page.getByRole("button", { name: "Close the analysis board" }).click();
assert.equal(await square(hana, "g1").getAttribute("aria-label"), "g1, white king");
// On the phone: the analysis board fits, flips, and closes back to the game.
await ivan.page.getByRole("button", { name: "Analysis board" }).click();
await ivan.page.locator(".analysis-banner", { hasText: "never sent" }).waitFor();
await analysisMove(ivan, "e8", "c8", "O-O-O");
await ivan.page.getByRole("button", { name: "Flip board" }).click();
await screenshot("analysis-phone", ivan);
await fitsAPhone(ivan, "the analysis board");
await ivan.page.getByRole("button", { name: "Close the analysis board" }).click();
await clickMove(ivan, "e8", "c8", "O-O-O", hana);
await bothSee(ivan, hana, "Kh1");
await hana.page.getByRole("status").getByText("Your conditional line answered O-O-O with Kh1.").waitFor();

step("a FEN start: the promotion choice in words, messages, a draw offered and accepted, seen live (the two players of the step before)");
await startGame(
  hana,
  ivan,
  { rules: "standard", start: "fen", fen: "k7/4P3/8/8/8/8/8/K7 w - - 0 1", color: "white" },
  "Chess (",
);
await square(hana, "e7").click();
await square(hana, "e8").click();
assert.deepEqual(await choices(hana), [
  "Promote to queen, e8=Q+",
  "Promote to rook, e8=R+",
  "Promote to bishop, e8=B",
  "Promote to knight, e8=N",
]);
await hana.page.getByRole("dialog").getByRole("button", { name: "Promote to queen, e8=Q+" }).click();
await confirm(hana);
await bothSee(hana, ivan, "e8=Q+");
await ivan.page.locator(`[data-square="a8"].check`).waitFor();
// A message, seen live by the opponent, with its line break.
await hana.page.getByLabel("Message to your opponent").fill("Good luck!\nYou will need it.");
await hana.page.getByRole("button", { name: "Send" }).click();
const heard = ivan.page.locator("ol.message-list li.theirs");
await heard.getByText("Good luck!").waitFor();
assert.equal(await heard.innerText(), "hana: Good luck!\nYou will need it.");
await ivan.page.getByLabel("Message to your opponent").fill("Thanks.");
await ivan.page.getByRole("button", { name: "Send" }).click();
await hana.page.locator("ol.message-list li.theirs").getByText("Thanks.").waitFor();
await screenshot("messages", hana, ivan);
// Dark colours: chosen on the page (kept on the device), or the system's.
await hana.page.getByRole("button", { name: "Dark theme" }).click();
assert.equal(await hana.page.evaluate(() => document.documentElement.dataset.theme), "dark");
await ivan.page.emulateMedia({ colorScheme: "dark" });
// The page hears the system's change as an event, after the call returns.
await ivan.page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
await screenshot("dark", hana, ivan);
await hana.page.getByRole("button", { name: "Dark theme" }).click();
assert.equal(await hana.page.evaluate(() => document.documentElement.dataset.theme), "light");
await ivan.page.emulateMedia({ colorScheme: "light" });
await typeMove(ivan, "Kb7", hana);
await hana.page.getByRole("button", { name: "Offer a draw" }).click();
await ivan.page.getByRole("status").getByText("White offers a draw.").waitFor();
await ivan.page.getByRole("button", { name: "Accept the draw" }).click();
await showState("Draw agreed.", ivan, hana);
await hana.page.getByRole("status").getByText("Draw agreed.").waitFor();

step("vacation from the lobby; the lobby lists the games with their starts; the PGN downloads");
const vacationGame = await startGame(alice, bob, { rules: "standard", start: "standard", color: "white" }, "Chess (");
await toLobby(alice);
await alice.page.getByRole("button", { name: "Start vacation" }).click();
await alice.page.getByText(/You are on vacation since/).waitFor();
// Her opponent sees her clock stand still, marked.
await toLobby(bob);
await afterNextView(bob, () => visitHash(bob, `#/games/${vacationGame}`));
// One name for plain chess, as the rules pages give it; no developer's
// notation on the lobby's form.
await bob.page.locator("#game-title", { hasText: /^Chess: alice – bob$/ }).waitFor();
await bob.page.locator("p.start", { hasText: "3 days per move" }).waitFor();
assert.equal(await alice.page.getByText(/FEN field/).count(), 0, "no FEN field numbers on a player's page");
const away = bob.page.getByRole("timer", { name: "White's clock" });
await away.filter({ hasText: /on vacation$/ }).waitFor();
const stood = await away.innerText();
await bob.page.waitForTimeout(1500);
assert.equal(await away.innerText(), stood, "a clock on vacation stands still");
assert.equal(await bob.page.locator("[role=timer].running").count(), 0, "no clock runs");
await bob.page.screenshot({ path: `${OUT}/vacation-bob.png` });
await bob.page.getByRole("button", { name: "Resign" }).click();
await showState("White (alice) won: Black resigned.", bob);
await alice.page.getByRole("button", { name: "End vacation" }).click();
await alice.page.getByRole("button", { name: "Start vacation" }).waitFor();
await alice.page.locator("ul.games .start", { hasText: "Pre-chess placement" }).first().waitFor();
// What the game page said of the resignation is not said again over the
// lobby the player opens later.
await bob.page.getByRole("status").getByText("You resigned.").waitFor();
await bob.page.waitForTimeout(1600);
await toLobby(bob);
assert.equal(await bob.page.getByRole("status").innerText(), "", "the status line is the new page's");
await bob.page.screenshot({ path: `${OUT}/lobby-bob.png`, fullPage: true });
// The games under way are boards from the player's side; past a
// screenful, a field finds them by opponent or rule set.
const ongoingGames = bob.page.locator("section[aria-labelledby=games-title] ul.games.boards > li");
assert((await ongoingGames.count()) > 8, "more games than the field needs");
assert.equal(await ongoingGames.first().locator(".board.thumb .square").count(), 64);
await bob.page.getByLabel("Find a game").fill("captive");
const captive = bob.page.locator("section[aria-labelledby=games-title] ul.games.boards > li:visible");
assert.equal(await captive.count(), 2, "the two Captive Kings games");
await bob.page.getByLabel("Find a game").fill("");
assert((await ongoingGames.locator(":scope:visible").count()) > 8);
await alice.page.screenshot({ path: `${OUT}/lobby-alice.png`, fullPage: true });
const links = alice.page.locator("ul.games a");
assert.equal(await links.count(), 11, "all eleven games listed");
await links.first().click();
// Drawn with its data: a link clicked while the view is still loading is
// replaced under the pointer.
await alice.page.locator("section.game:not([data-loading])").waitFor();
const [download] = await Promise.all([
  alice.page.waitForEvent("download"),
  alice.page.getByRole("link", { name: "Download PGN" }).click(),
]);
const pgn = await (await fetch(`${BASE}${new URL(download.url()).pathname}`)).text();
assert.match(pgn, /\[Variant "/);


step("the study archive: a new player imports two annotated files, studies a game through its variations, searches");
const carol = await player("carol", { width: 1200, height: 900 }, "198.51.100.3");
await authenticate(carol, "Create account");
const study = (name) => readFileSync(new URL(`../../core/tests/data/annotated/${name}`, import.meta.url), "utf8");
await afterNextView(carol, () => visitHash(carol, "#/collections"));
const importing = carol.page.getByRole("form", { name: "Import PGN" });
await importing.getByLabel("Into the collection").fill("Studies");
await importing.getByLabel("Or its text").fill(study("lasker-janowski-1910-scid.pgn") + study("london-system-lichess-study.pgn"));
await importing.getByRole("button", { name: "Import" }).click();
await carol.page.getByText("2 read: 2 imported").waitFor();
await afterNextView(carol, () => carol.page.getByRole("link", { name: "Open the collection" }).click());
await carol.page.getByRole("heading", { name: "Studies" }).waitFor();
assert.equal(await carol.page.locator("ul.archive li").count(), 2);
await carol.page.screenshot({ path: `${OUT}/collection-carol.png`, fullPage: true });
await afterNextView(carol, () => carol.page.getByRole("link", { name: "Lasker, Emanuel – Janowski, Dawid" }).click());
const movetext = carol.page.locator(".movetext");
await movetext.getByText(/This time the money for the world championship/).waitFor();
await movetext.locator(".variation").first().getByRole("button", { name: "Bg5" }).click();
await carol.page.getByRole("group", { name: "Board after ply 11" }).waitFor();
await carol.page.keyboard.press("ArrowRight");
await carol.page.getByRole("group", { name: "Board after ply 12" }).waitFor();
assert.match(await movetext.locator(".san.current").textContent(), /Nf6/);
await carol.page.keyboard.press("ArrowLeft");
await carol.page.keyboard.press("ArrowLeft");
await carol.page.getByRole("group", { name: "Board after ply 10" }).waitFor();
assert.match(await movetext.locator(".san.current").textContent(), /Be6/, "back to the mainline before the variation");
await carol.page.screenshot({ path: `${OUT}/study-carol.png`, fullPage: true });
// The analysis board from the position on show: moves tried for both sides,
// the arrow keys off the board step along the line tried.
await carol.page.getByRole("button", { name: "Analysis board" }).click();
await carol.page.locator(".analysis-banner", { hasText: "never sent" }).waitFor();
await analysisMove(carol, "e2", "e4", "e4");
await analysisMove(carol, "d5", "e4", "dxe4");
await carol.page.locator("#analysis-title").click();
await carol.page.keyboard.press("ArrowLeft");
await carol.page.locator(".analysis-line .san.current", { hasText: /^e4$/ }).waitFor();
assert.match(await movetext.locator(".san.current").textContent(), /Be6/, "the game's line stays where it was");
await carol.page.screenshot({ path: `${OUT}/study-analysis-carol.png`, fullPage: true });
await fitsAPhone(carol, "the study's analysis board");
await carol.page.getByRole("button", { name: "Close the analysis board" }).click();
await carol.page.getByRole("group", { name: "Board after ply 10" }).waitFor();

await afterNextView(carol, () => visitHash(carol, "#/search"));
const byPosition = carol.page.getByRole("form", { name: "Search by position" });
await byPosition.getByLabel("Moves from the start").fill("d4 d5 c4");
await afterNextView(carol, () => byPosition.getByRole("button", { name: "Search" }).click());
await carol.page.locator("table.explorer").getByRole("link", { name: "e6" }).waitFor();
await carol.page.locator("ul.archive").getByText("Lasker, Emanuel – Janowski, Dawid").waitFor();
await carol.page.screenshot({ path: `${OUT}/search-carol.png`, fullPage: true });
await afterNextView(carol, () => carol.page.locator("table.explorer").getByRole("link", { name: "e6" }).click());
await carol.page.getByRole("heading", { name: "Explorer: 1 game" }).waitFor();

// 25 more games of 1. e4 e5 (10 won by White, 10 drawn, 5 won by Black):
// the explorer gives each move its share of the games and its own results;
// the games found come a page at a time.
const results = [...Array(10).fill("1-0"), ...Array(10).fill("1/2-1/2"), ...Array(5).fill("0-1")];
const kingsPawn = results.map((r, i) => `[Event "Club ${i + 1}"]\n[Result "${r}"]\n\n1. e4 e5 ${r}\n`).join("\n");
await afterNextView(carol, () => visitHash(carol, "#/collections"));
await importing.getByLabel("Into the collection").fill("Club");
await importing.getByLabel("Or its text").fill(kingsPawn);
await importing.getByRole("button", { name: "Import" }).click();
await carol.page.getByText("25 read: 25 imported").waitFor();
assert.equal(await importing.getByRole("button", { name: "Import" }).isEnabled(), true, "enabled again once done");
await afterNextView(carol, () => visitHash(carol, "#/search"));
// Her own: the played games of the others do not count here.
await byPosition.getByLabel("Moves from the start").fill("");
await byPosition.getByLabel("Only my own games and collections").check();
await afterNextView(carol, () => byPosition.getByRole("button", { name: "Search" }).click());
await carol.page.getByRole("heading", { name: "Explorer: 27 games" }).waitFor();
const e4 = carol.page.locator("table.explorer tbody tr", { has: carol.page.getByRole("link", { name: "e4", exact: true }) });
assert.deepEqual(await e4.locator("td").allInnerTexts().then((cells) => cells.slice(0, 5)), ["25", "93%", "40%", "40%", "20%"]);
await carol.page.screenshot({ path: `${OUT}/explorer-carol.png`, fullPage: true });
await byPosition.getByLabel("Moves from the start").fill("e4 e5");
await afterNextView(carol, () => byPosition.getByRole("button", { name: "Search" }).click());
const found = carol.page.locator("section[aria-labelledby=found-title] ul.archive li");
await found.nth(19).waitFor();
assert.equal(await found.count(), 20, "a first page");
await carol.page.getByRole("button", { name: "More games" }).click();
await found.nth(24).waitFor();
await carol.page.getByRole("button", { name: "More games" }).waitFor({ state: "hidden" });
assert.equal(await found.count(), 25, "and the rest");
// A surname alone, without its accent or case, finds the player and says
// how the games spell the name.
await afterNextView(carol, () => visitHash(carol, "#/search"));
const byData = carol.page.getByRole("form", { name: "Search by player and opening" });
await byData.getByLabel("Player", { exact: true }).fill("LASKER");
await afterNextView(carol, () => byData.getByRole("button", { name: "Search" }).click());
await carol.page.locator("p.spellings", { hasText: "Names found: Lasker, Emanuel." }).waitFor();
await carol.page.screenshot({ path: `${OUT}/search-player-carol.png`, fullPage: true });

step("a player annotates a finished game of theirs; the note shows signed");
await toLobby(ivan);
const drawn = ivan.page.locator("section[aria-labelledby=finished-title] ul.games li", { hasText: "Draw agreed" });
await afterNextView(ivan, () => drawn.first().locator("a").click());
await afterNextView(ivan, () => ivan.page.getByRole("link", { name: "Study and annotate this game" }).click());
const notes = ivan.page.locator(".movetext");
await notes.locator(".san").first().click();
const note = ivan.page.getByRole("form", { name: "Annotate" });
await note.getByLabel("Comment").fill("A sharp start");
await note.getByLabel("Mark").selectOption("!");
await note.getByRole("button", { name: "Save the note" }).click();
await notes.getByText("ivan: A sharp start").waitFor();
await ivan.page.screenshot({ path: `${OUT}/annotated-ivan.png`, fullPage: true });
// On the phone the board stays in view while the moves are stepped
// through, by a tap on a move or by the step buttons under the board.
await notes.locator(".san").last().click();
const studied = ivan.page.locator(".study .board");
const last = Number((await studied.getAttribute("aria-label")).match(/\d+$/)[0]);
const inView = await studied.boundingBox();
assert(inView.y >= 0 && inView.y + inView.height <= 844, `the board in view after a tap on the last move (top at ${inView.y} px)`);
await ivan.page.getByRole("button", { name: "The move before" }).click();
await ivan.page.getByRole("group", { name: `Board after ply ${last - 1}` }).waitFor();
await ivan.page.getByRole("button", { name: "The start" }).click();
await ivan.page.getByRole("group", { name: "Board after ply 0" }).waitFor();
assert.equal(await ivan.page.getByRole("button", { name: "The move before" }).isDisabled(), true);
await ivan.page.screenshot({ path: `${OUT}/study-phone-ivan.png` });

step("a rated game moves both ratings; the profile and the leaderboard show them");
const dave = await player("dave", { width: 1200, height: 900 }, "198.51.100.4");
await authenticate(dave, "Create account");
const erin = await player("erin", { width: 1200, height: 900 }, "198.51.100.5");
await authenticate(erin, "Create account");
const ratedGame = await startGame(dave, erin, { rules: "standard", start: "standard", color: "white", rated: true }, "Chess (");
await dave.page.locator("p.start", { hasText: "rated" }).waitFor();
await dave.page.locator("#game-title", { hasText: "dave (1500?) – erin (1500?)" }).waitFor();
for (const [p, san, opponent] of [
  [dave, "f3", erin],
  [erin, "e5", dave],
  [dave, "g4", erin],
  [erin, "Qh4#", dave],
])
  await typeMove(p, san, opponent);
await dave.page.locator("#game-title", { hasText: /dave \(1500\? −\d+\) – erin \(1500\? \+\d+\)/ }).waitFor();
await dave.page.screenshot({ path: `${OUT}/rated-game-dave.png`, fullPage: true });
await afterNextView(erin, () => erin.page.locator("#who").getByRole("link", { name: "erin" }).click());
await erin.page.getByRole("heading", { name: "erin" }).waitFor();
await erin.page.locator("table.ratings td", { hasText: /^1\d{3}\?$/ }).waitFor();
await erin.page.locator("ul.records", { hasText: "Chess: 1 won, 0 drawn, 0 lost" }).waitFor();
await erin.page.getByRole("heading", { name: "Rating history: Chess" }).waitFor();
await erin.page.screenshot({ path: `${OUT}/profile-erin.png`, fullPage: true });
// Another's profile offers a challenge, the form filled in with the name.
await afterNextView(erin, () => visitHash(erin, "#/users/dave"));
await afterNextView(erin, () => erin.page.getByRole("link", { name: "Challenge dave" }).click());
assert.equal(await erin.page.getByRole("form", { name: "New challenge" }).getByLabel("Opponent").inputValue(), "dave");
await afterNextView(erin, () => visitHash(erin, "#/users/erin"));
// From the finished game, a rematch, and no other game to move; the
// rematch declined, the challenger's lobby says so.
await afterNextView(erin, () => visitHash(erin, `#/games/${ratedGame}`));
await erin.page.getByRole("button", { name: "Rematch" }).click();
await erin.page.getByRole("status").getByText("Rematch offered.").waitFor();
await erin.page.getByRole("button", { name: "Next game to move" }).click();
await erin.page.getByRole("status").getByText("No other game awaits your move.").waitFor();
await toLobby(erin);
await toLobby(dave);
const offered = dave.page.locator("ul.challenges li", { hasText: "erin" });
await offered.getByRole("button", { name: "Decline" }).click();
await erin.page.getByRole("status").getByText("A challenge of yours was declined.").waitFor();
await afterNextView(erin, () => visitHash(erin, "#/users/erin"));
await fitsAPhone(erin, "the profile");
await afterNextView(erin, () => erin.page.getByRole("link", { name: "Leaderboard of this pool" }).click());
await erin.page.getByRole("heading", { name: "Leaderboard: Chess" }).waitFor();
await erin.page.getByText("No established ratings in this pool yet.").waitFor();
await erin.page.screenshot({ path: `${OUT}/leaderboard-erin.png`, fullPage: true });
// A BOT (upgraded through lichess's Bot API) is marked on its profile.
await makeBot("stockbot");
await afterNextView(erin, () => visitHash(erin, "#/users/stockbot"));
await erin.page.getByRole("heading", { name: "stockbot BOT" }).waitFor();
await erin.page.getByText("Its games are casual.").waitFor();
// A seek for ratings up to 1600: dave (now below 1500) sees it, erin (above) does not.
await toLobby(dave);
const seekForm = dave.page.getByRole("form", { name: "New challenge" });
await seekForm.getByLabel("Lowest", { exact: true }).fill("1000");
await seekForm.getByLabel("Highest", { exact: true }).fill("1600");
await seekForm.getByRole("button", { name: "Send challenge" }).click();
await dave.page.getByRole("status").getByText("Challenge sent.").waitFor();
await dave.page.locator("ul.challenges li", { hasText: "for ratings 1000 to 1600" }).waitFor();
await dave.page.screenshot({ path: `${OUT}/seek-dave.png`, fullPage: true });
await toLobby(erin);
await erin.page.getByRole("heading", { name: "Challenges" }).waitFor();
assert.equal(await erin.page.locator("ul.challenges li", { hasText: "for ratings 1000 to 1600" }).count(), 0);

step("an ICCF control: 10 moves in 50 days, the clocks and the moves to the control in words");
await toLobby(dave);
const timed = erin.page.getByRole("form", { name: "New challenge" });
await timed.getByLabel("Time").selectOption("control");
await timed.getByLabel("Moves", { exact: true }).fill("10");
await timed.getByLabel("in days", { exact: true }).fill("50");
await timed.getByLabel("Your colour").selectOption("white");
await timed.getByLabel("Opponent").fill("dave");
await timed.getByRole("button", { name: "Send challenge" }).click();
const offer = dave.page.locator("ul.challenges li", { hasText: "10 moves in 50 days" });
await offer.getByRole("button", { name: "Accept" }).click();
await dave.page.locator("section.game").waitFor();
await dave.page.locator("p.start", { hasText: "10 moves in 50 days, casual" }).waitFor();
await dave.page.locator("p.state", { hasText: "10 moves to the control" }).waitFor();
await dave.page.getByRole("timer", { name: "White's clock" }).filter({ hasText: /^(49 d 23:5\d:\d\d|50 d 00:00:00)$/ }).waitFor();
await dave.page.getByRole("timer", { name: "Black's clock" }).filter({ hasText: /^50 d 00:00:00$/ }).waitFor();
await dave.page.screenshot({ path: `${OUT}/control-dave.png`, fullPage: true });

step("a round robin: organised, joined by three, started with its standings and crosstable");
await afterNextView(dave, () => dave.page.locator("#who").getByRole("link", { name: "Tournaments" }).click());
const organise = dave.page.getByRole("form", { name: "Organise a tournament" });
// The form offers the starts and times the server takes for the rule set
// chosen: no Chess960 for King to Bunker Leap, Shuffle and Pre-chess where
// they exist, and the clocks.
await organise.getByLabel("Rules").selectOption("bunker-leap");
const leapStarts = await organise.getByLabel("Start").locator("option").allInnerTexts();
assert(!leapStarts.some((s) => /Chess960/.test(s)), `${leapStarts}`);
assert(leapStarts.some((s) => /Pre-chess/.test(s)) && leapStarts.some((s) => /Shuffle.*each round/.test(s)), `${leapStarts}`);
await organise.getByLabel("Rules").selectOption("standard");
const chessStarts = await organise.getByLabel("Start").locator("option").allInnerTexts();
assert(chessStarts.some((s) => /Chess960.*each round/.test(s)), `${chessStarts}`);
assert.equal(await organise.getByLabel("Time").locator("option").count(), 3, "days per move, a control, a bank");
await organise.getByLabel("Name").fill("Winter round robin");
await organise.getByLabel("Players (3 to 17)").fill("3");
await afterNextView(dave, () => organise.getByRole("button", { name: "Organise" }).click());
await dave.page.getByRole("heading", { name: "Winter round robin" }).waitFor();
const tournamentHash = new URL(dave.page.url()).hash;
for (const p of [dave, erin, carol]) {
  if (p !== dave) await afterNextView(p, () => visitHash(p, tournamentHash));
  await p.page.getByRole("heading", { name: "Winter round robin" }).waitFor();
  await p.page.getByRole("button", { name: "Join" }).click();
  // The last place taken starts it: the players may withdraw, no longer leave.
  await p.page.getByRole("button", { name: p === carol ? "Withdraw" : "Leave" }).waitFor();
}
await carol.page.getByText("Under way: every game started at once.").waitFor();
await carol.page.locator("table.standings tbody tr").nth(2).waitFor();
assert.equal(await carol.page.locator("table.crosstable tbody tr").count(), 3);
assert.equal(await carol.page.locator("ul.tournament-games li").count(), 3);
await carol.page.screenshot({ path: `${OUT}/tournament-carol.png`, fullPage: true });
await fitsAPhone(carol, "the standings and crosstable");
// A tournament's game offers no abort, even before anyone moved: the
// server says so in the game's actions.
await afterNextView(carol, () => carol.page.locator("ul.tournament-games li a", { hasText: "carol" }).first().click());
await carol.page.locator("section.game:not([data-loading])").waitFor();
await carol.page.getByRole("button", { name: "Resign" }).waitFor();
assert.equal(await carol.page.getByRole("button", { name: "Abort" }).count(), 0, "no abort in a tournament");

step("a Swiss: organised with a round deadline, joined by three, round 1 paired with its bye, round by round");
{
  await afterNextView(dave, () => dave.page.locator("#who").getByRole("link", { name: "Tournaments" }).click());
  const form = dave.page.getByRole("form", { name: "Organise a tournament" });
  await form.getByLabel("Name").fill("Spring Swiss");
  await form.getByLabel("Format").selectOption("swiss");
  assert.equal(await form.getByLabel("Double round robin (both colours)").isVisible(), false, "no double Swiss");
  await form.getByLabel("Players (3 to 1,000)").fill("3");
  await form.getByLabel("Rounds").fill("2");
  await form.getByLabel("Days for each round").fill("7");
  await form.getByLabel("Games under way at a round's deadline").selectOption("draw");
  await afterNextView(dave, () => form.getByRole("button", { name: "Organise" }).click());
  await dave.page.getByRole("heading", { name: "Spring Swiss" }).waitFor();
  await dave.page.locator("p.about", { hasText: "Swiss, 2 rounds" }).waitFor();
  await dave.page.locator("p.about", { hasText: "7 days a round, games under way then drawn" }).waitFor();
  const swissHash = new URL(dave.page.url()).hash;
  for (const p of [dave, erin, carol]) {
    if (p !== dave) await afterNextView(p, () => visitHash(p, swissHash));
    await p.page.getByRole("heading", { name: "Spring Swiss" }).waitFor();
    await p.page.getByRole("button", { name: "Join" }).click();
    await p.page.getByRole("button", { name: p === carol ? "Withdraw" : "Leave" }).waitFor();
  }
  await carol.page.getByText("Under way: round 1 of 2", { exact: false }).waitFor();
  await carol.page.getByRole("columnheader", { name: "Buchholz cut 1" }).waitFor();
  assert.equal(await carol.page.locator("table.standings tbody tr").count(), 3);
  assert.equal(await carol.page.locator("table.crosstable tbody tr").count(), 3);
  await carol.page.getByRole("heading", { name: "Round 1" }).waitFor();
  assert.equal(await carol.page.locator("ul.tournament-games li:not(.bye)").count(), 1, "one game");
  assert.equal(await carol.page.locator("ul.tournament-games li.bye").count(), 1, "and the bye");
  await carol.page.getByRole("link", { name: "The report (FIDE's TRF)" }).waitFor();
  await carol.page.screenshot({ path: `${OUT}/swiss-carol.png`, fullPage: true });
  await fitsAPhone(carol, "a Swiss's standings and rounds", "phone-swiss-carol");
}

step("teams and a team match: two teams, organised, ordered by a captain, accepted, two boards with two games each, the score");
{
  // Dave makes an open team, Carol joins it; Erin makes one by invitation
  // and invites Alice.
  const makeTeam = async (p, name, open) => {
    await afterNextView(p, () => p.page.locator("#who").getByRole("link", { name: "Teams" }).click());
    const form = p.page.getByRole("form", { name: "Make a team" });
    await form.getByLabel("Name").fill(name);
    if (!open) await form.getByLabel("Anyone may join", { exact: false }).uncheck();
    await afterNextView(p, () => form.getByRole("button", { name: "Make the team" }).click());
    await p.page.getByRole("heading", { name }).waitFor();
    return new URL(p.page.url()).hash;
  };
  const rooks = await makeTeam(dave, "Dave's Rooks", true);
  const bishops = await makeTeam(erin, "Erin's Bishops", false);
  await afterNextView(carol, () => visitHash(carol, rooks));
  await carol.page.getByRole("button", { name: "Join" }).click();
  await carol.page.locator("ul.members li", { hasText: "carol" }).waitFor();
  const invite = erin.page.getByRole("form", { name: "Invite a player" });
  await invite.getByLabel("Username").fill("alice");
  await invite.getByRole("button", { name: "Invite" }).click();
  await erin.page.getByRole("status").getByText("alice invited: done.").waitFor();
  await afterNextView(alice, () => visitHash(alice, bishops));
  await alice.page.getByRole("button", { name: "Join" }).click();
  await alice.page.locator("ul.members li", { hasText: "alice" }).waitFor();
  // Dave, captain, organises a match of two boards from his team's page,
  // still on show since he made the team.
  await afterNextView(dave, () => dave.page.getByRole("link", { name: "Organise a match" }).click());
  const form = dave.page.getByRole("form", { name: "Organise a tournament" });
  assert.equal(await form.getByLabel("Format").inputValue(), "team_match");
  await form.getByLabel("Name").fill("Rooks v Bishops");
  await form.getByLabel("Opponent team").selectOption({ label: "Erin's Bishops" });
  await form.getByLabel("Boards (1 to 100)").fill("2");
  await afterNextView(dave, () => form.getByRole("button", { name: "Organise" }).click());
  await dave.page.getByRole("heading", { name: "Rooks v Bishops" }).waitFor();
  await dave.page.getByText("Waiting for a captain of Erin's Bishops to accept.", { exact: false }).waitFor();
  const matchHash = new URL(dave.page.url()).hash;
  for (const p of [dave, carol, erin, alice]) {
    if (p !== dave) await afterNextView(p, () => visitHash(p, matchHash));
    await p.page.getByRole("heading", { name: "Rooks v Bishops" }).waitFor();
    await p.page.getByRole("button", { name: "Sign up for your team" }).click();
    await p.page.getByRole("button", { name: "Leave" }).waitFor();
  }
  // Dave, back on the match's page, puts Carol on board 1.
  await afterNextView(dave, () => visitHash(dave, rooks));
  await afterNextView(dave, () => visitHash(dave, matchHash));
  await dave.page.getByLabel("Board order of Dave's Rooks").fill("carol, dave");
  await dave.page.getByRole("button", { name: "Set the order" }).click();
  await dave.page.locator("div.side ol.players li").first().filter({ hasText: "carol" }).waitFor();
  await erin.page.getByRole("button", { name: "Accept the match" }).click();
  await erin.page.getByText("Under way: 4 games still being played.").waitFor();
  assert.equal(await erin.page.locator("table.boards tbody tr").count(), 2);
  await erin.page.locator("table.boards tbody tr").first().filter({ hasText: "carol" }).waitFor();
  // Carol and Alice open the match under way (from their teams' pages);
  // Alice resigns her game with White on board 2: the score moves.
  for (const [p, team] of [[carol, rooks], [alice, bishops]]) {
    await afterNextView(p, () => visitHash(p, team));
    await afterNextView(p, () => visitHash(p, matchHash));
    await p.page.locator("table.boards tbody tr").nth(1).waitFor();
  }
  await afterNextView(alice, () => alice.page.getByRole("link", { name: "alice – dave, under way" }).click());
  await alice.page.locator("section.game:not([data-loading])").waitFor();
  await alice.page.getByRole("button", { name: "Resign" }).click();
  await alice.page.getByRole("status").getByText("resigned", { exact: false }).waitFor();
  // Carol's page, open all along, shows the new score without a reload.
  await carol.page.locator("p.score", { hasText: "1 – 0" }).waitFor();
  await carol.page.screenshot({ path: `${OUT}/team-match-carol.png`, fullPage: true });
  await fitsAPhone(carol, "a team match's boards and score", "phone-team-match-carol");
  await afterNextView(dave, () => visitHash(dave, rooks));
  await dave.page.locator("ul.tournaments li", { hasText: "Rooks v Bishops" }).waitFor();
  await dave.page.screenshot({ path: `${OUT}/team-dave.png`, fullPage: true });
  await fitsAPhone(dave, "a team's page", "phone-team-dave");
}

step("the account page: no mail server, said; notification settings; push from a button and a pushed notification shown; forgot password");
{
  // A page of its own, whose refused save is the point, not a problem.
  const frank = await player("frank", { width: 1200, height: 900 }, "198.51.100.6");
  await authenticate(frank, "Create account");
  await frank.page.getByRole("link", { name: "Account" }).click();
  await frank.page.getByText("No address yet.", { exact: false }).waitFor();
  await frank.page.getByLabel("Address").fill("frank@example.org");
  await frank.page.getByRole("button", { name: "Save address" }).click();
  await frank.page.getByRole("status").getByText("this server sends no e-mail", { exact: false }).waitFor();

  // Notifications: a daily summary at 07:00 in Paris, without moves.
  const notices = frank.page.getByRole("form", { name: "Notifications" });
  await notices.getByLabel("E-mail: Your opponent moved").uncheck();
  await notices.getByLabel("Once a day", { exact: false }).check();
  await notices.getByLabel("Daily mail at").selectOption("7");
  await notices.getByLabel("Time zone").fill("Europe/Paris");
  await notices.getByRole("button", { name: "Save notifications" }).click();
  await frank.page.getByRole("status").getByText("Notification settings saved.").waitFor();
  await frank.page.getByText("Next summary:", { exact: false }).waitFor();
  assert.equal(await notices.getByLabel("E-mail: Your opponent moved").isChecked(), false);
  assert.equal(await notices.getByLabel("Push: Your opponent moved").isChecked(), true);
  assert.equal(await notices.getByLabel("Time zone").inputValue(), "Europe/Paris");
  await notices.getByLabel("Time zone").fill("Mars/Olympus");
  await notices.getByRole("button", { name: "Save notifications" }).click();
  await frank.page.getByRole("status").getByText("is not a time zone", { exact: false }).waitFor();
  await frank.page.screenshot({ path: `${OUT}/account-frank.png`, fullPage: true });

  // Push: asked for from a button. This Chromium has no push service to
  // subscribe at (a browser's vendor runs it), which the page says; its
  // service worker is registered all the same, and shows a push delivered
  // to it through the DevTools protocol, as the server's payload reads.
  await frank.context.grantPermissions(["notifications"], { origin: BASE });
  await frank.page.getByRole("button", { name: "Turn push on in this browser" }).click();
  await frank.page.getByRole("status").getByText(/Push is on|could not subscribe/).waitFor();
  const worker = await frank.page.evaluate(async () => (await navigator.serviceWorker.ready).active.scriptURL);
  assert.equal(worker, `${BASE}/sw.js`);
  const devtools = await frank.context.newCDPSession(frank.page);
  const registered = new Promise((resolve) =>
    devtools.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${BASE}/`);
      if (ours) resolve(ours.registrationId);
    }),
  );
  await devtools.send("ServiceWorker.enable");
  const registrationId = await registered;
  const payload = { title: "Your move against alice: 12... Nf6", body: "alice played 12... Nf6 in your game against alice.", url: "/#/games/abc", tag: "abc" };
  // A push delivered while the new worker is still starting can be dropped
  // by DevTools before it reaches the worker: deliver again until one shows
  // (the same tag, so a later one replaces an earlier).
  let shown = [];
  for (let delivery = 0; delivery < 5 && !shown.length; delivery += 1) {
    await devtools.send("ServiceWorker.deliverPushMessage", { origin: BASE, registrationId, data: JSON.stringify(payload) });
    shown = await frank.page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      for (let tries = 0; tries < 30; tries += 1) {
        const list = await registration.getNotifications();
        if (list.length) return list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data.url }));
        await new Promise((r) => setTimeout(r, 100));
      }
      return [];
    });
  }
  assert.deepEqual(shown, [{ title: payload.title, body: payload.body, tag: "abc", url: "/#/games/abc" }]);
  await frank.page.screenshot({ path: `${OUT}/push-frank.png`, fullPage: true });

  // Forgot password, signed out: this server cannot mail the link, and says so.
  await frank.page.getByRole("button", { name: "Sign out" }).click();
  await frank.page.getByRole("link", { name: "Forgot your password?" }).waitFor();
  await frank.page.screenshot({ path: `${OUT}/sign-in.png` });
  await frank.page.getByRole("link", { name: "Forgot your password?" }).click();
  await frank.page.getByLabel("Username or e-mail address").fill("frank");
  await frank.page.getByRole("button", { name: "Mail me a link" }).click();
  await frank.page.getByText("this server sends no e-mail", { exact: false }).waitFor();
  await frank.page.screenshot({ path: `${OUT}/forgot-password.png`, fullPage: true });
  // A reset link that is no longer good is refused in words.
  await visitHash(frank, "#/reset-password/NotOneTheServerSent");
  await frank.page.getByLabel("New password").fill("a new and long passphrase");
  await frank.page.getByRole("button", { name: "Save the new password" }).click();
  await frank.page.getByRole("alert").getByText("the link is used, expired", { exact: false }).waitFor();
  await frank.page.screenshot({ path: `${OUT}/reset-password.png`, fullPage: true });
  await frank.context.close();
}

step("the account page on a phone, and deleting an account from it");
{
  const gina = await player("gina", { width: 390, height: 844 }, "198.51.100.7");
  await authenticate(gina, "Create account");
  await gina.page.getByRole("link", { name: "Account" }).click();
  await gina.page.getByRole("heading", { name: "Delete your account" }).waitFor();
  const width = await gina.page.evaluate(() => document.documentElement.scrollWidth);
  assert(width <= 390, `the account page fits a 390 px phone screen (page is ${width} px wide)`);
  await gina.page.screenshot({ path: `${OUT}/account-gina.png`, fullPage: true });
  const form = gina.page.getByRole("form", { name: "Delete account" });
  await form.getByLabel("Password").fill(PASSWORD);
  await form.getByLabel("Type your username", { exact: false }).fill("someone else");
  await form.getByRole("button", { name: "Delete my account" }).click();
  await gina.page.getByRole("status").getByText("Type your username, gina, to confirm.").waitFor();
  await form.getByLabel("Type your username", { exact: false }).fill("gina");
  await form.getByRole("button", { name: "Delete my account" }).click();
  await gina.page.getByRole("status").getByText("Your account is deleted.").waitFor();
  // Signed out, and the account is no more.
  const signIn = gina.page.getByRole("form", { name: "Sign in" });
  await signIn.getByLabel("Username").fill("gina");
  await signIn.getByLabel("Password").fill(PASSWORD);
  await signIn.getByRole("button", { name: "Sign in" }).click();
  await signIn.getByRole("alert").getByText("wrong username or password").waitFor();
  await gina.page.screenshot({ path: `${OUT}/deleted-gina.png`, fullPage: true });
  await gina.context.close();
}

const problems = [alice, bob, carol, dave, erin, hana, ivan].flatMap((p) => p.problems);
assert.deepEqual(problems, [], "no script errors or refused loads in either page");
await browser.close();
console.log(`web client: all steps passed; screenshots in ${OUT}`);
