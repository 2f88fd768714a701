DROP TABLE collection_games;
DROP TABLE collections;
