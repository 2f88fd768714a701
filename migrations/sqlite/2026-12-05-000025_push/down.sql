ALTER TABLE notification_settings DROP COLUMN push_subscriptions;
ALTER TABLE notification_settings DROP COLUMN push_events;
DROP TABLE push_outbox;
DROP TABLE push_subscriptions;
