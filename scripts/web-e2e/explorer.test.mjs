// The explorer's figures (api/web/explorer.js): a move's results are shares
// of its own games, not of every game that left the position.
import assert from "node:assert/strict";
import { test } from "node:test";
import { explorerShares } from "../../api/web/explorer.js";

test("a move's results are shares of its own games", () => {
  // 90 games left the position, 27 by this move: 9 won by White, 11 drawn,
  // 7 won by Black.
  const shares = explorerShares({ games: 27, white: 9, draws: 11, black: 7 }, 90);
  assert.deepEqual(shares, { share: 30, white: 33, draws: 41, black: 26 });
});

test("no games: no shares, rather than a division by zero", () => {
  assert.deepEqual(explorerShares({ games: 0, white: 0, draws: 0, black: 0 }, 0), {
    share: 0,
    white: 0,
    draws: 0,
    black: 0,
  });
});
