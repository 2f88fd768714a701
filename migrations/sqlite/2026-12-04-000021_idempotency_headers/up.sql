-- A replayed answer repeats the first one's headers (Location, ETag...),
-- not only its status and body. Keys are now kept per credential (a token,
-- or a sign-in), under scopes of new names: those kept per account before
-- are left to expire within the day they were kept for.
ALTER TABLE idempotency_keys ADD COLUMN headers TEXT;
