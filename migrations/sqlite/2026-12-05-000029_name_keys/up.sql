-- Each side's name as a search compares it: the surname and the first given
-- name, folded (accents off, lower case). Written by the server, which folds
-- the games stored before this migration when it next starts.
ALTER TABLE games ADD COLUMN white_surname TEXT;
ALTER TABLE games ADD COLUMN white_first TEXT;
ALTER TABLE games ADD COLUMN black_surname TEXT;
ALTER TABLE games ADD COLUMN black_first TEXT;
CREATE INDEX games_by_white_surname ON games (white_surname);
CREATE INDEX games_by_black_surname ON games (black_surname);
-- The games whose names are still to fold.
CREATE INDEX games_unfolded ON games (id) WHERE white_surname IS NULL;
