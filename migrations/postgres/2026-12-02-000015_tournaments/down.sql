DROP INDEX tournament_games_in_order;
DROP TABLE tournament_games;
DROP TABLE tournament_players;
DROP INDEX tournaments_by_status;
DROP TABLE tournaments;
