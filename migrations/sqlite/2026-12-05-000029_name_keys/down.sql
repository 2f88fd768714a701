DROP INDEX games_unfolded;
DROP INDEX games_by_black_surname;
DROP INDEX games_by_white_surname;
ALTER TABLE games DROP COLUMN black_first;
ALTER TABLE games DROP COLUMN black_surname;
ALTER TABLE games DROP COLUMN white_first;
ALTER TABLE games DROP COLUMN white_surname;
