-- The dates cleared were unknown: nothing to restore.
SELECT 1;
