DROP TABLE conditionals;
ALTER TABLE accounts DROP COLUMN vacation_since;
ALTER TABLE accounts DROP COLUMN vacation_next_grant_at;
ALTER TABLE accounts DROP COLUMN vacation_balance;
DROP INDEX games_by_deadline;
ALTER TABLE games DROP COLUMN draw_offer_by;
ALTER TABLE games DROP COLUMN turn_started_at;
