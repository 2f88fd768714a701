DROP TABLE account_deletions;
ALTER TABLE accounts DROP COLUMN deleted_at;
