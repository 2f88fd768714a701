ALTER TABLE accounts DROP COLUMN last_active_at;
DROP INDEX game_ratings_history;
DROP TABLE game_ratings;
DROP INDEX ratings_leaderboard;
DROP TABLE ratings;
ALTER TABLE challenges DROP COLUMN rated;
ALTER TABLE games DROP COLUMN rated;
