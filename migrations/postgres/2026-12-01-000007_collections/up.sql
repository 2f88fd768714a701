-- Collections: an account's named sets of imported games, private unless
-- made public. A game is stored once (imports find the same game by its
-- import key) and may stand in several collections, each at its place.
CREATE TABLE collections (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    visibility TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (owner_id, name)
);

CREATE TABLE collection_games (
    collection_id TEXT NOT NULL REFERENCES collections (id),
    game_id TEXT NOT NULL REFERENCES games (id),
    -- The game's place in the collection: the order it was imported in.
    ord BIGINT NOT NULL,
    PRIMARY KEY (collection_id, game_id)
);

CREATE INDEX collection_games_in_order ON collection_games (collection_id, ord, game_id);
CREATE INDEX collection_games_by_game ON collection_games (game_id);
