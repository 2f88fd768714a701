-- Games under way in order of the time their deadline warning falls due:
-- a quarter of the turn's time before its deadline. The sweep reads the
-- games whose warning time has come along it, where along the deadlines it
-- read every game under way with a deadline within a year. The expression
-- is the one `models::game::WARNING_TIME` writes, character for character:
-- the planners use an index on an expression only for the same expression.
CREATE INDEX games_by_warning ON games (status, (deadline_at - (deadline_at - turn_started_at) / 4), id);
