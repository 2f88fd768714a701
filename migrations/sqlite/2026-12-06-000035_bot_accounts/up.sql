-- BOT accounts (the lichess Bot API): an account that has never played may
-- become one, for good; it then plays through the Bot API only.
ALTER TABLE accounts ADD COLUMN bot BOOLEAN NOT NULL DEFAULT 0;
