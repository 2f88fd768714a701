-- Browsers that receive an account's notifications by Web Push: each
-- PushSubscription the browser gave (its push service's endpoint and the
-- keys its payloads are encrypted to).
CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    endpoint TEXT NOT NULL,
    -- The browser's P-256 key and authentication secret, base64url.
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX push_subscriptions_by_endpoint ON push_subscriptions (endpoint);
CREATE INDEX push_subscriptions_by_account ON push_subscriptions (account_id);

-- A push of one event to one subscription, written in the transaction of
-- the event, its payload written when it is sent; leased and retried as
-- mail is.
CREATE TABLE push_outbox (
    id BIGSERIAL PRIMARY KEY,
    subscription_id TEXT NOT NULL,
    event_id BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    sent_at BIGINT,
    last_error TEXT
);
CREATE INDEX push_outbox_due ON push_outbox (status, next_attempt_at);
CREATE INDEX push_outbox_by_subscription ON push_outbox (subscription_id);

-- The events pushed (kinds separated by spaces; NULL: the defaults), and
-- how many subscriptions the account has, so that recording an event for
-- an account without any costs no statement.
ALTER TABLE notification_settings ADD COLUMN push_events TEXT;
ALTER TABLE notification_settings ADD COLUMN push_subscriptions INTEGER NOT NULL DEFAULT 0;
