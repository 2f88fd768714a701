DROP INDEX games_by_start_position;
DROP INDEX moves_by_position;
