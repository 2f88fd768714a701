DROP INDEX challenges_open_by_time;
ALTER TABLE challenges DROP COLUMN rating_max;
ALTER TABLE challenges DROP COLUMN rating_min;
