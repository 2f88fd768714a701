-- Presence: while one of an account's streams is open, the instance
-- holding it keeps this a little ahead of now (`GET /api/users/status`).
ALTER TABLE accounts ADD COLUMN online_until BIGINT;
