DROP INDEX games_by_warning;
