// Two players in two browser contexts (one desktop, one phone-sized) use
// the web client at / to sign up, challenge, accept and play games of
// every rule set, by clicks, the keyboard and typed moves; each board is
// saved as a screenshot in $ARTEFACTS.
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const BASE = process.env.KINGPOST_URL;
const OUT = process.env.ARTEFACTS;
const PASSWORD = "correct horse battery staple";
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM });

function step(text) {
  console.log(`- ${text}`);
}

async function player(name, viewport) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on("pageerror", (e) => problems.push(`${name}: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`${name}: ${m.text()}`));
  page.on("dialog", (d) => d.accept());
  page.on("console", (m) => m.type() === "log" && console.log(`  [${name}] ${m.text()}`));
  await page.goto(`${BASE}/`);
  return { name, page, problems };
}

async function authenticate(p, form) {
  const fields = p.page.getByRole("form", { name: form });
  await fields.getByLabel("Username").fill(p.name);
  await fields.getByLabel("Password").fill(PASSWORD);
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

async function toLobby(p) {
  if (!p.page.url().endsWith("#/")) {
    await afterNextView(p, () => p.page.getByRole("link", { name: "kingpost" }).click());
  }
  await p.page.getByRole("form", { name: "New challenge" }).waitFor();
}

async function challenge(p, { rules, start, fen, color, opponent }) {
  await toLobby(p);
  const form = p.page.getByRole("form", { name: "New challenge" });
  await form.getByLabel("Rules").selectOption(rules);
  await form.getByLabel("Start").selectOption(start);
  if (fen) await form.getByLabel("FEN", { exact: true }).fill(fen);
  await form.getByLabel("Your colour").selectOption(color);
  await form.getByLabel("Opponent").fill(opponent.name);
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
  await row.getByRole("button", { name: "Accept" }).click();
  await opponent.page.locator("section.game").waitFor();
  await challenger.page
    .getByRole("link", { name: `${variant} against ${opponent.name}` })
    .first()
    .click();
  await challenger.page.locator("section.game").waitFor();
}

const square = (p, name) => p.page.locator(`[data-square="${name}"]`);

async function seesMove(p, san) {
  const exact = new RegExp(`^${san.replace(/[+=]/g, "\\$&")}$`);
  await p.page.locator("ol.moves .san", { hasText: exact }).waitFor();
}

/** The mover's page shows the move at once; the opponent's learns of it
 * by its long poll, without a reload. */
async function bothSee(p, opponent, san) {
  await seesMove(p, san);
  await seesMove(opponent, san);
}

async function clickMove(p, from, to, san, opponent) {
  await square(p, from).click();
  await square(p, to).click();
  await bothSee(p, opponent, san);
}

async function typeMove(p, san, opponent) {
  const entry = p.page.getByRole("form", { name: "Type a move" });
  await entry.getByLabel("Move").fill(san);
  await entry.getByRole("button", { name: "Play" }).click();
  await bothSee(p, opponent, san);
}

async function showState(text, ...players) {
  for (const p of players) await p.page.locator("p.state", { hasText: text }).waitFor();
}

async function isTarget(p, name) {
  return (await square(p, name).getAttribute("class")).split(" ").includes("target");
}

async function screenshot(p, file) {
  await p.page.locator(".board").screenshot({ path: `${OUT}/${file}-board.png` });
  await p.page.screenshot({ path: `${OUT}/${file}-${p.name}.png`, fullPage: true });
}

const alice = await player("alice", { width: 1200, height: 900 });
const bob = await player("bob", { width: 390, height: 844 });

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

step("sign up both, sign alice out and in again");
await authenticate(alice, "Create account");
await authenticate(bob, "Create account");
await alice.page.getByRole("button", { name: "Sign out" }).click();
await alice.page.getByRole("form", { name: "Sign in" }).waitFor();
await authenticate(alice, "Sign in");

step("Teleporting Kings: a teleport, a move by keyboard, a resignation");
await startGame(
  alice,
  bob,
  { rules: "teleporting-kings", start: "standard", color: "white" },
  "Teleporting Kings",
);
await clickMove(alice, "e2", "e4", "e4", bob);
// Bob (Black, board turned) plays e7-e5 with Enter and the arrow keys.
await square(bob, "e7").focus();
await bob.page.keyboard.press("Enter");
await bob.page.keyboard.press("ArrowUp");
await bob.page.keyboard.press("ArrowUp");
assert.equal(await bob.page.evaluate(() => document.activeElement.dataset.square), "e5");
await bob.page.keyboard.press("Enter");
await bothSee(bob, alice, "e5");
// The king's far squares come from the server's list: e3 is a teleport,
// d8 (an enemy unit) is not.
await square(alice, "e1").click();
assert(await isTarget(alice, "e3"), "e3 is offered as a teleport");
assert(!(await isTarget(alice, "d8")), "d8 is not offered");
await square(alice, "e3").click();
await bothSee(alice, bob, "Ke3");
await screenshot(bob, "teleporting-kings");
const width = await bob.page.evaluate(() => document.documentElement.scrollWidth);
assert(width <= 390, `the game fits a 390 px phone screen (page is ${width} px wide)`);
await bob.page.getByRole("button", { name: "Resign" }).click();
await showState("1-0, resignation", bob, alice);

step("Switching: a switch picked from either end, a typed move");
await startGame(bob, alice, { rules: "switching", start: "standard", color: "white" }, "Switching");
await clickMove(bob, "h1", "g1", "Ng1h1", alice);
await typeMove(alice, "e5", bob);
await clickMove(bob, "e2", "e4", "e4", alice);
await clickMove(alice, "a8", "b8", "Ra8b8", bob);
await screenshot(alice, "switching");

step("King to Bunker Leap from Pre-chess: placements from the holdings");
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
await bothSee(alice, bob, "K@e1");
await bob.page.locator('[data-unit="q"]').click();
await square(bob, "d8").click();
await bothSee(bob, alice, "Q@d8");
await screenshot(bob, "bunker-leap-prechess");

step("Captive Kings and Chess960: a move each, then the boards");
await startGame(
  bob,
  alice,
  { rules: "captive-kings", start: "standard", color: "white" },
  "Captive Kings",
);
await clickMove(bob, "e2", "e4", "e4", alice);
await screenshot(alice, "captive-kings");
await startGame(alice, bob, { rules: "standard", start: "chess960", color: "white" }, "Chess960");
await clickMove(alice, "e2", "e4", "e4", bob);
await screenshot(bob, "chess960");

step("a FEN start: the promotion choice, a draw offered and accepted");
await startGame(
  alice,
  bob,
  { rules: "standard", start: "fen", fen: "k7/4P3/8/8/8/8/8/K7 w - - 0 1", color: "white" },
  "Standard",
);
await square(alice, "e7").click();
await square(alice, "e8").click();
await alice.page.getByRole("dialog").getByRole("button", { name: "e8=Q+" }).click();
await bothSee(alice, bob, "e8=Q+");
await typeMove(bob, "Kb7", alice);
await alice.page.getByRole("button", { name: "Offer a draw" }).click();
await bob.page.getByRole("button", { name: "Accept the draw" }).click();
await showState("1/2-1/2, agreement", bob, alice);

step("the lobby lists the games, the PGN downloads");
await toLobby(alice);
await toLobby(bob);
await bob.page.screenshot({ path: `${OUT}/lobby-bob.png`, fullPage: true });
const links = alice.page.locator("ul.games a");
assert.equal(await links.count(), 6, "six games listed");
await links.first().click();
await alice.page.locator("section.game").waitFor();
const [download] = await Promise.all([
  alice.page.waitForEvent("download"),
  alice.page.getByRole("link", { name: "Download PGN" }).click(),
]);
const pgn = await (await fetch(`${BASE}${new URL(download.url()).pathname}`)).text();
assert.match(pgn, /\[Variant "/);

const problems = [...alice.problems, ...bob.problems];
assert.deepEqual(problems, [], "no script errors or refused loads in either page");
await browser.close();
console.log(`web client: all steps passed; screenshots in ${OUT}`);
