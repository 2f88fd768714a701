// The page's move picking (api/web/moves.js), which knows no rules: it
// only matches the squares and units picked against the server's list.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Picker, isDark, parseFen, parseMove, withPlayed } from "../../api/web/moves.js";

test("FEN board, side to move and Pre-chess holdings (RULES.md, extended FEN)", () => {
  const { board, turn, held } = parseFen(
    "8/pppppppp/8/8/8/8/PPPPPPPP/4K3[QRRBBNNkqrrbbnn] b - - 1 1 -",
  );
  assert.equal(board.get("e1"), "K");
  assert.equal(board.get("a7"), "p");
  assert.equal(board.has("e8"), false);
  assert.equal(turn, "black");
  assert.equal(held, "QRRBBNNkqrrbbnn");
});

test("a1 is dark and h1 light, as on every board", () => {
  assert.equal(isDark("a1"), true);
  assert.equal(isDark("h1"), false);
  assert.equal(isDark("d1"), false); // the white queen's square is light
  assert.equal(isDark("e1"), true);
  assert.equal(isDark("h8"), true);
});

test("UCI parts: promotion and placement (RULES.md, notation)", () => {
  assert.deepEqual(parseMove("e7e8q"), { uci: "e7e8q", from: "e7", to: "e8", promotion: "q" });
  assert.deepEqual(parseMove("K@e1"), { uci: "K@e1", put: "K", to: "e1" });
});

test("a promotion square offers each choice the server lists", () => {
  const picker = new Picker(
    ["q", "r", "b", "n"].map((p) => ({ uci: `a7a8${p}`, san: `a8=${p.toUpperCase()}` })),
    "8/P7/8/8/8/8/8/k6K w - - 0 1",
  );
  assert.deepEqual(
    picker.between("a7", "a8").map((m) => m.san),
    ["a8=Q", "a8=R", "a8=B", "a8=N"],
  );
  assert.deepEqual([...picker.targets("a7")], ["a8"]);
});

test("a switch between two own units is picked from either end (RULES.md, Switching)", () => {
  const picker = new Picker(
    [
      { uci: "g1h1", san: "Ng1h1" },
      { uci: "g1f3", san: "Nf3" },
    ],
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
  );
  assert.equal(picker.between("h1", "g1")[0].san, "Ng1h1");
  assert.equal(picker.between("g1", "h1")[0].san, "Ng1h1");
  assert.deepEqual([...picker.targets("h1")], ["g1"]);
  // An ordinary move is not reversible: f3 holds no unit of the mover.
  assert.deepEqual(picker.between("f3", "g1"), []);
});

// RULES.md, King to Bunker Leap: castling and the leap both take the king
// to g1; castling is picked by the king to g1 or onto the rook.
test("castling is picked by king to destination, king to rook, and from the rook", () => {
  const castling = {
    uci: "e1h1",
    san: "O-O",
    kind: "castling",
    castling: { king_from: "e1", king_to: "g1", rook_from: "h1", rook_to: "f1" },
  };
  const picker = new Picker(
    [castling, { uci: "e1g1", san: "Kg1", kind: "leap" }, { uci: "h1f1", san: "Rf1", kind: "normal" }],
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 Ll",
  );
  assert.deepEqual(picker.between("e1", "g1").map((m) => m.san).sort(), ["Kg1", "O-O"]);
  assert.deepEqual(picker.between("e1", "h1").map((m) => m.san), ["O-O"]);
  assert.deepEqual(picker.between("h1", "e1").map((m) => m.san), ["O-O"]);
  assert.deepEqual(picker.between("h1", "f1").map((m) => m.san).sort(), ["O-O", "Rf1"]);
  assert.deepEqual([...picker.targets("e1")].sort(), ["g1", "h1"]);
});

// RULES.md, Captive Kings: White castles with the black king on e1, so the
// castler starts from the own rook.
test("Captive Kings castling is picked from the castler's rook", () => {
  const picker = new Picker(
    [
      {
        uci: "e1g1",
        san: "O-O",
        kind: "castling",
        castling: { king_from: "e1", king_to: "g1", rook_from: "h1", rook_to: "f1" },
      },
    ],
    "4K3/8/8/8/8/8/8/4k2R w K - 0 1 Cc",
  );
  assert.deepEqual([...picker.targets("h1")].sort(), ["e1", "f1"]);
  assert.equal(picker.between("h1", "e1")[0].san, "O-O");
});

test("a square with no listed move starts nothing; placements come from the holdings", () => {
  const picker = new Picker(
    [
      { uci: "K@e1", san: "K@e1" },
      { uci: "K@d1", san: "K@d1" },
      { uci: "Q@e1", san: "Q@e1" },
    ],
    "8/pppppppp/8/8/8/8/PPPPPPPP/8[KQkq] w - - 0 1 -",
  );
  assert.equal(picker.startsOn("e2"), false);
  assert.deepEqual(
    picker.placements("k").map((m) => m.to),
    ["e1", "d1"],
  );
  assert.deepEqual([...picker.placeable()].sort(), ["K", "Q"]);
});

test("a move's answer adds the moves it played to those read before", () => {
  const move = (ply, san) => ({ ply, uci: "", san, played_at: null });
  const game = { ply: 1, fen: "before", moves: [move(1, "e4")] };
  // Black's move and White's conditional reply; a list that already held
  // the move (a long poll answered first) does not show it twice.
  const answer = { ply: 3, fen: "after", played: [move(2, "c5"), move(3, "Nf3")] };
  for (const read of [game, { ...game, moves: [...game.moves, move(2, "c5")] }]) {
    const next = withPlayed(read, answer);
    assert.deepEqual(next.moves.map((m) => m.san), ["e4", "c5", "Nf3"]);
    assert.equal(next.fen, "after");
    assert.equal("played" in next, false);
  }
});
