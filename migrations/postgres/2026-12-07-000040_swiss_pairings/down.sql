DROP TABLE tournament_pairings;
