// A whole game through a TypeScript client generated from
// openapi/openapi.json by @hey-api/openapi-ts, untouched, type-checked by
// tsc and run with node: two accounts sign up and sign in, one challenges,
// the other accepts, they play to checkmate (Black waiting for White's
// moves with long polls, `If-None-Match` and `wait`), the PGN is read back
// as text, imported as JSON and exported again, and Black's events are read.
//
//     node dist/play.js <base url, e.g. http://127.0.0.1:18769>
//
// Run by scripts/ts-client/run.sh, which generates the client fresh and
// starts the server.

import { createClient, type Client } from "./gen/client";
import {
  acceptChallenge,
  createAccount,
  createChallenge,
  createImport,
  createSessionToken,
  exportGamePgn,
  getGame,
  playMove,
  streamEvents,
} from "./gen";
import type { GameView, MoveAnswer } from "./gen";

const PASSWORD = "correct horse battery staple";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** The answer's data, or the run fails with its error. */
function expect<T>(answer: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (answer.data === undefined || answer.error !== undefined) {
    fail(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

async function signedIn(baseUrl: string, username: string): Promise<Client> {
  const anonymous = createClient({ baseUrl });
  expect(await createAccount({ client: anonymous, body: { username, password: PASSWORD } }), "sign-up");
  const session = expect(
    await createSessionToken({
      client: anonymous,
      body: { grant_type: "password", username, password: PASSWORD },
    }),
    "sign-in",
  );
  return createClient({ baseUrl, auth: session.access_token });
}

/** Starts a long poll on the game as `client` last read it; the promise is
 * the game as it woke. */
async function longPoll(client: Client, id: string): Promise<() => Promise<GameView>> {
  const current = await getGame({ client, path: { id } });
  expect(current, "read");
  const etag = current.response.headers.get("etag") ?? fail("no ETag");
  const woken = getGame({ client, path: { id }, query: { wait: 30 }, headers: { "If-None-Match": etag } });
  return async () => {
    const answer = await woken;
    if (answer.response.status !== 200) fail(`the long poll answered ${answer.response.status}`);
    return expect(answer, "long poll");
  };
}

/** A game's PGN as text, as `Accept: text/plain` asks. */
async function pgnOf(client: Client, id: string): Promise<string> {
  const answer = await exportGamePgn({ client, path: { id }, headers: { Accept: "text/plain" } });
  const text: string = expect(answer, "PGN export");
  if (typeof text !== "string") fail(`the PGN came as ${typeof text}`);
  return text;
}

async function main(): Promise<void> {
  const baseUrl = process.argv[2] ?? fail("usage: node dist/play.js <base url>");
  const white = await signedIn(baseUrl, "ts_white");
  const black = await signedIn(baseUrl, "ts_black");

  const challenge = expect(
    await createChallenge({
      client: white,
      body: { rules: "standard", days_per_move: 3, color: "white", opponent: "ts_black" },
    }),
    "challenge",
  );
  const game: GameView = expect(await acceptChallenge({ client: black, path: { id: challenge.id } }), "accept");

  // The fool's mate, each move chosen from the server's legal moves.
  const foolsMate = ["f3", "e5", "g4", "Qh4#"];
  let state: GameView | MoveAnswer = game;
  const sans: string[] = [];
  for (const [ply, san] of foolsMate.entries()) {
    const player = ply % 2 === 0 ? white : black;
    const legal = state.legal_moves.find((m) => m.san === san) ?? fail(`${san} is not legal here`);
    const poll = player === white ? await longPoll(black, game.id) : undefined;
    const answer: MoveAnswer = expect(
      await playMove({ client: player, path: { id: game.id }, body: { move: legal.uci, ply: state.ply } }),
      `move ${san}`,
    );
    sans.push(...answer.played.map((m) => m.san));
    if (poll !== undefined) {
      const woken = await poll();
      if (woken.ply !== answer.ply) fail(`Black woke at ply ${woken.ply}, not ${answer.ply}`);
    }
    state = answer;
  }
  const read = expect(await getGame({ client: white, path: { id: game.id } }), "read");
  if (JSON.stringify(sans) !== JSON.stringify(foolsMate) || read.termination !== "checkmate" || read.result !== "0-1") {
    fail(`the game should be over by checkmate, 0-1: ${sans} ${read.termination} ${read.result}`);
  }

  // Black's events as the log holds them: `follow: false` ends the stream.
  const events = await streamEvents({ client: black, query: { since: 0, follow: false }, parseAs: "text" });
  const text = expect(events, "events") as unknown as string;
  const kinds = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { type: string }).type);
  if (kinds[0] !== "challenge_received" || kinds[kinds.length - 1] !== "game_finished") {
    fail(`Black's events: ${kinds}`);
  }

  const pgn = await pgnOf(white, game.id);
  if (!pgn.includes("Qh4#") || !pgn.includes('[Result "0-1"]')) fail(`unexpected PGN:\n${pgn}`);
  const report = expect(
    await createImport({ client: white, body: { pgn }, query: { collection: "typescript" } }),
    "import",
  );
  const imported = report.games[0]?.id;
  if (report.imported !== 1 || !imported) fail(`the import reported ${JSON.stringify(report)}`);
  const again = await pgnOf(white, imported);
  if (!again.includes("Qh4#")) fail(`the imported game exports as:\n${again}`);
  console.log(
    `typescript client: game ${game.id} over by checkmate after ${read.ply} plies, Black woken by long polls; ` +
      `PGN read back, imported as ${imported} and exported again`,
  );
}

main().catch((error: unknown) => fail(String(error)));
