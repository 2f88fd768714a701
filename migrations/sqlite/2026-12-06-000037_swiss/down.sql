DROP TABLE tournament_byes;
ALTER TABLE tournaments DROP COLUMN tiebreaks;
ALTER TABLE tournaments DROP COLUMN round;
ALTER TABLE tournaments DROP COLUMN rounds;
ALTER TABLE tournaments DROP COLUMN format;
