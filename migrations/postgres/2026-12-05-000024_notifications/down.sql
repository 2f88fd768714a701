DROP INDEX games_by_warning;
CREATE INDEX games_by_warning ON games ((deadline_at - (deadline_at - turn_started_at) / 4), id)
    WHERE deadline_at IS NOT NULL;
DROP INDEX account_emails_by_address;
DROP TABLE password_resets;
DROP INDEX mail_outbox_by_account;
DROP INDEX mail_outbox_by_address;
ALTER TABLE mail_outbox DROP COLUMN event_id;
ALTER TABLE mail_outbox DROP COLUMN kind;
CREATE INDEX mail_outbox_by_address ON mail_outbox (to_address, created_at);
CREATE INDEX mail_outbox_by_account ON mail_outbox (account_id, created_at);
DROP TABLE notification_settings;
