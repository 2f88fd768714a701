-- An account's e-mail address: nothing is sent to it but its verification
-- until the link of that mail has been followed.
CREATE TABLE account_emails (
    account_id TEXT PRIMARY KEY NOT NULL REFERENCES accounts (id),
    address TEXT NOT NULL,
    verified_at BIGINT,
    -- The digest of the verification link's token while one is pending.
    token_digest TEXT,
    token_expires_at BIGINT,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX account_emails_by_token ON account_emails (token_digest);

-- Mail to send, written in the transaction of the change that causes it,
-- claimed with a lease by one instance at a time, retried with backoff.
CREATE TABLE mail_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    text_body TEXT NOT NULL,
    html_body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    -- pending, sent or failed.
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    sent_at BIGINT,
    last_error TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt_at);
-- The rates at which an address is written to, and an account has mail
-- sent, are counted along these.
CREATE INDEX mail_outbox_by_address ON mail_outbox (to_address, created_at);
CREATE INDEX mail_outbox_by_account ON mail_outbox (account_id, created_at);
