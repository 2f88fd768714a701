DROP TABLE mail_outbox;
DROP TABLE account_emails;
