DROP INDEX games_by_tagged_eco;
ALTER TABLE games DROP COLUMN tagged_opening;
ALTER TABLE games DROP COLUMN tagged_eco;
