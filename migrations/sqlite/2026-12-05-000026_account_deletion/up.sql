-- When the account was deleted. A deleted account keeps its row, so that
-- its games stay with their opponents: its name is `[deleted]`, its key one
-- no username can have (the name is free again), its password none.
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;

-- Deletions with work left: the games still to resign and the collections
-- still to delete. The request that deletes does that work; the sweep
-- finishes a deletion interrupted (the server stopped).
CREATE TABLE account_deletions (
    account_id TEXT PRIMARY KEY NOT NULL REFERENCES accounts (id),
    requested_at BIGINT NOT NULL
);
