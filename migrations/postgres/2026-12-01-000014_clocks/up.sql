-- Clocks that carry time over (an ICCF control, a bank with an increment),
-- beside days per move: the spec as JSON, on the challenge and the game,
-- and the bank of the side not to move, in milliseconds, as its last move
-- left it (the mover's is its deadline). Null for days per move.
ALTER TABLE challenges ADD COLUMN clock TEXT;
ALTER TABLE games ADD COLUMN clock TEXT;
ALTER TABLE games ADD COLUMN waiting_bank BIGINT;
