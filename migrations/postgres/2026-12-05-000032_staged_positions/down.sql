DROP TABLE staged_positions;
