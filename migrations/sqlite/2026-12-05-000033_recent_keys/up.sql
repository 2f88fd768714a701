-- The repetition keys of a game's positions since its last capture or pawn
-- move, the current one last (8 bytes each, little-endian): what the
-- repetition rules count, kept with the game so that a move need not
-- replay the game from its start. NULL until a move writes them (a game
-- stored before, an imported game): a move then replays the game once.
ALTER TABLE games ADD COLUMN recent_keys BLOB;
