DROP INDEX games_finished_white;
DROP INDEX games_finished_black;
