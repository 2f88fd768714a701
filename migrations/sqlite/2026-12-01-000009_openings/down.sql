DROP INDEX games_by_eco;
ALTER TABLE games DROP COLUMN opening;
ALTER TABLE games DROP COLUMN eco;
