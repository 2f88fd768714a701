DROP TABLE challenges;
DROP TABLE moves;
DROP TABLE games;
DROP TABLE refresh_tokens;
DROP TABLE tokens;
DROP TABLE accounts;
DROP TABLE settings;
