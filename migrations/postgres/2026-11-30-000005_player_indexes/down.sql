DROP INDEX games_by_white;
DROP INDEX games_by_black;
DROP INDEX games_by_deadline;
CREATE INDEX games_by_white ON games (white_id, status, deadline_at);
CREATE INDEX games_by_black ON games (black_id, status, deadline_at);
CREATE INDEX games_by_mover ON games (to_move_id, deadline_at);
CREATE INDEX games_by_deadline ON games (status, deadline_at);
