DROP TABLE mutes;
DROP TABLE messages;
