-- Games under way (the only ones with a deadline) in order of the time
-- their deadline warning falls due: a quarter of the turn's time before
-- the deadline. The sweep reads the games whose warning time has come along
-- it, where along the deadlines it read every game under way with a
-- deadline within a year. The expression is the one
-- `models::game::warnings_due` writes, character for character: the
-- planners use an index on an expression only for the same expression. It
-- does not lead with the status, which would offer the planners a worse
-- road to every list of games under way.
CREATE INDEX games_by_warning ON games ((deadline_at - (deadline_at - turn_started_at) / 4), id)
    WHERE deadline_at IS NOT NULL;
