-- Which events reach an account by e-mail, and when: each at once, or a
-- daily digest at an hour of the player's time zone. No row: the defaults.
CREATE TABLE notification_settings (
    account_id TEXT PRIMARY KEY NOT NULL REFERENCES accounts (id),
    -- Event kinds, separated by spaces.
    email_events TEXT NOT NULL,
    email_digest BOOLEAN NOT NULL,
    digest_hour INTEGER NOT NULL,
    -- An IANA zone: `Europe/Paris`.
    time_zone TEXT NOT NULL,
    -- When the next digest goes out: the chosen hour for a digest, the end
    -- of an hour whose mails reached the hourly bound otherwise.
    next_digest_at BIGINT,
    -- A digest tells of the events since this time.
    digest_since BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX notification_digests_due ON notification_settings (next_digest_at)
    WHERE next_digest_at IS NOT NULL;

-- What a mail is (`verification`, `reset`, `notice`, `digest`): each kind
-- has its own hourly bounds. A notice names its event and is written when
-- it is sent, with what stands then.
ALTER TABLE mail_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'verification';
ALTER TABLE mail_outbox ADD COLUMN event_id BIGINT;
DROP INDEX mail_outbox_by_address;
DROP INDEX mail_outbox_by_account;
CREATE INDEX mail_outbox_by_address ON mail_outbox (to_address, kind, created_at);
CREATE INDEX mail_outbox_by_account ON mail_outbox (account_id, kind, created_at);

-- "Forgot password" links: single use, short lived, the token's digest kept.
CREATE TABLE password_resets (
    token_digest TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX password_resets_by_account ON password_resets (account_id, created_at);
-- A reset asked for by address finds the accounts that verified it.
CREATE INDEX account_emails_by_address ON account_emails (address);

-- A deadline warning falls due 24 hours before the deadline, or a quarter
-- of the turn's time before it when that is shorter. The expression is the
-- one `models::game::warnings_due` writes, character for character.
DROP INDEX games_by_warning;
CREATE INDEX games_by_warning ON games ((deadline_at - CASE WHEN (deadline_at - turn_started_at) / 4 < 86400000 THEN (deadline_at - turn_started_at) / 4 ELSE 86400000 END), id)
    WHERE deadline_at IS NOT NULL;
