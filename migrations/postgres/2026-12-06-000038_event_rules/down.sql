ALTER TABLE tournaments DROP COLUMN start_when_full;
ALTER TABLE tournaments DROP COLUMN vacation_allowed;
ALTER TABLE games DROP COLUMN vacation_allowed;
