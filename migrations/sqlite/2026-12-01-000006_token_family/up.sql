-- The sign-in a session's access token belongs to, so that revoking a
-- sign-in (a refresh token used twice) revokes its access tokens too.
ALTER TABLE tokens ADD COLUMN family TEXT;
