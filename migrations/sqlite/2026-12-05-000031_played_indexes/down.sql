DROP INDEX games_by_white;
DROP INDEX games_by_black;
DROP INDEX games_archive_white;
DROP INDEX games_archive_black;
DROP INDEX games_finished_white;
DROP INDEX games_finished_black;
DROP INDEX games_by_deadline;
CREATE INDEX games_by_white ON games (white_id, status);
CREATE INDEX games_by_black ON games (black_id, status);
CREATE INDEX games_archive_white ON games (white_id, created_at, id);
CREATE INDEX games_archive_black ON games (black_id, created_at, id);
CREATE INDEX games_finished_white ON games (white_id, updated_at DESC, id, status)
    WHERE status <> 'started';
CREATE INDEX games_finished_black ON games (black_id, updated_at DESC, id, status)
    WHERE status <> 'started';
CREATE INDEX games_by_deadline ON games (deadline_at, id);
