DROP INDEX games_by_black_name;
DROP INDEX games_by_white_name;
DROP INDEX games_by_day;
ALTER TABLE games DROP COLUMN played_on;
