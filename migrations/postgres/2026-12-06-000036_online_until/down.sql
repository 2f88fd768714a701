ALTER TABLE accounts DROP COLUMN online_until;
