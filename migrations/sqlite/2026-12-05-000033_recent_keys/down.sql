ALTER TABLE games DROP COLUMN recent_keys;
