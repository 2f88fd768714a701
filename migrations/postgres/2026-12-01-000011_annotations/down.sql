DROP TABLE annotations;
DROP TABLE game_notes;
