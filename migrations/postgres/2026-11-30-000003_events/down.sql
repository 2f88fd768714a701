ALTER TABLE games DROP COLUMN warned_ply;
DROP TABLE deliveries;
DROP TABLE webhooks;
DROP TABLE events;
