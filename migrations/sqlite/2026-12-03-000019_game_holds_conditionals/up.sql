-- Whether a player holds conditional lines in the game, read with the game
-- under its lock so that a move reads the lines only when there are some
-- (a statement less on almost every move). Written with the lines, in the
-- same transaction, by whoever stores or removes them.
ALTER TABLE games ADD COLUMN holds_conditionals BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE games SET holds_conditionals = TRUE
    WHERE id IN (SELECT game_id FROM conditionals);
