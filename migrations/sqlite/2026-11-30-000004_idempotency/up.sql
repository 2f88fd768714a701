-- The first answer to each Idempotency-Key, by the account (or address)
-- that sent it; a null status while the first request runs.
CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER,
    content_type TEXT,
    body BLOB,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_time ON idempotency_keys (created_at);
