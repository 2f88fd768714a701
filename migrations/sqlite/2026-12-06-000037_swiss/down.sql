DROP TABLE tournament_byes;
DROP INDEX tournaments_by_round_deadline;
ALTER TABLE tournaments DROP COLUMN round_deadline_at;
ALTER TABLE tournaments DROP COLUMN adjudication;
ALTER TABLE tournaments DROP COLUMN round_days;
ALTER TABLE tournaments DROP COLUMN tiebreaks;
ALTER TABLE tournaments DROP COLUMN round;
ALTER TABLE tournaments DROP COLUMN rounds;
ALTER TABLE tournaments DROP COLUMN format;
