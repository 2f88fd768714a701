-- Events for one account each, in order: the stream's log and the source
-- of webhook deliveries.
CREATE TABLE events (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    game_id TEXT,
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX events_by_account ON events (account_id, id);
CREATE INDEX events_by_time ON events (created_at);

CREATE TABLE webhooks (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    kinds TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX webhooks_by_account ON webhooks (account_id);

-- The queue of webhook deliveries: a restart loses none.
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY NOT NULL,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id),
    event_id BIGINT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_status INTEGER,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    delivered_at BIGINT
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, created_at);

-- The ply whose deadline-near event was sent.
ALTER TABLE games ADD COLUMN warned_ply INTEGER;
