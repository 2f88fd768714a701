-- Copies made for a game's later collections stay copies; keys keep their
-- collection's prefix (a reverted server only compares them).
DROP TABLE staged_counts;
DROP TABLE explorer_counts;
