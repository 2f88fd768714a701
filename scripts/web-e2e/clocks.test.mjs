// The clocks by the names (api/web/clocks.js): the side to move's counts
// down from the server's figure, stands still on vacation (README,
// correspondence: "a player's clocks stand still"), and the
// other side's shows the time it will have.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clockText, sideClocks } from "../../api/web/clocks.js";

const game = (overrides) => ({
  status: "started",
  turn: "white",
  days_per_move: 1,
  time_left_seconds: 86_399,
  clock: null,
  white: { on_vacation: false },
  black: { on_vacation: false },
  ...overrides,
});

test("the side to move counts down; the other shows a day per move", () => {
  const clocks = sideClocks(game({}), 130);
  assert.deepEqual(clocks.white, { seconds: 86_269, running: true, vacation: false, urgent: false });
  assert.deepEqual(clocks.black, { seconds: 86_400, running: false, vacation: false, urgent: false });
  assert.equal(clockText(clocks.white.seconds), "23:57:49");
  assert.equal(clockText(clocks.black.seconds), "1 d 00:00:00");
});

test("a player on vacation: the clock stands still", () => {
  const clocks = sideClocks(game({ white: { on_vacation: true } }), 600);
  assert.deepEqual(clocks.white, { seconds: 86_399, running: false, vacation: true, urgent: false });
});

test("a tournament that allows no vacation: the clock of a player on vacation runs", () => {
  const clocks = sideClocks(game({ white: { on_vacation: true }, vacation_allowed: false }), 600);
  assert.deepEqual(clocks.white, { seconds: 85_799, running: true, vacation: false, urgent: false });
});

test("under a tenth of the time for a move, or an hour, is urgent", () => {
  assert.equal(sideClocks(game({ time_left_seconds: 8_000 }), 0).white.urgent, true);
  assert.equal(sideClocks(game({ time_left_seconds: 9_000 }), 0).white.urgent, false);
  assert.equal(sideClocks(game({ time_left_seconds: 4_000, days_per_move: 0, clock: { white_seconds: 4_000, black_seconds: 7_200 } }), 500).white.urgent, true);
});

test("a clock that carries time over: the waiting side shows its bank", () => {
  const clocks = sideClocks(game({ days_per_move: 0, clock: { white_seconds: 50_000, black_seconds: 172_800 } }), 0);
  assert.equal(clocks.black.seconds, 172_800);
  assert.equal(clockText(clocks.black.seconds), "2 d 00:00:00");
});

test("no clocks once the game is over", () => {
  assert.equal(sideClocks(game({ status: "finished" }), 0), null);
});
