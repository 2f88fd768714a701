-- The rules an event sets beside clock and rating: whether a player's
-- vacation stops the clocks of its games (kept on each game, as its
-- clock is), and whether a tournament starts as soon as it is full or at
-- its sign-up deadline, its start time, however soon it fills.
ALTER TABLE games ADD COLUMN vacation_allowed BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE tournaments ADD COLUMN vacation_allowed BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE tournaments ADD COLUMN start_when_full BOOLEAN NOT NULL DEFAULT TRUE;
