-- An imported game belongs to one collection: until now importing a game
-- again into another collection filed the same game in both, so that an
-- explorer summing collections counted it twice. Each collection but the
-- first (by id) gets its own copy, with the game's notes, annotations and
-- positions; import keys are prefixed with their collection, as the
-- server now makes them.
CREATE TEMPORARY TABLE refiled (
    old_id TEXT NOT NULL,
    collection_id TEXT NOT NULL,
    new_id TEXT NOT NULL,
    PRIMARY KEY (old_id, collection_id)
) ON COMMIT DROP;
INSERT INTO refiled (old_id, collection_id, new_id)
    SELECT cg.game_id, cg.collection_id,
        substr(replace(gen_random_uuid()::text, '-', ''), 1, 16)
    FROM collection_games cg
    WHERE cg.collection_id > (SELECT min(kept.collection_id) FROM collection_games kept
                              WHERE kept.game_id = cg.game_id);

INSERT INTO games (id, rules, start_kind, start_number, initial_fen, initial_key,
    current_fen, ply, status, result, termination, white_id, black_id, white_name,
    black_name, to_move_id, days_per_move, deadline_at, created_at, updated_at,
    imported_by, import_key, source_tags, turn_started_at, draw_offer_by, warned_ply,
    eco, opening, played_on, rated, clock, waiting_bank, holds_conditionals,
    tagged_eco, tagged_opening, white_surname, white_first, black_surname,
    black_first, moves, move_times, recent_keys)
    SELECT r.new_id, g.rules, g.start_kind, g.start_number, g.initial_fen, g.initial_key,
        g.current_fen, g.ply, g.status, g.result, g.termination, g.white_id, g.black_id,
        g.white_name, g.black_name, g.to_move_id, g.days_per_move, g.deadline_at,
        g.created_at, g.updated_at, g.imported_by,
        r.collection_id || substr(g.import_key, strpos(g.import_key, ':')),
        g.source_tags, g.turn_started_at, g.draw_offer_by, g.warned_ply, g.eco,
        g.opening, g.played_on, g.rated, g.clock, g.waiting_bank, g.holds_conditionals,
        g.tagged_eco, g.tagged_opening, g.white_surname, g.white_first, g.black_surname,
        g.black_first, g.moves, g.move_times, g.recent_keys
    FROM refiled r JOIN games g ON g.id = r.old_id;
INSERT INTO game_notes (game_id, notes)
    SELECT r.new_id, n.notes FROM refiled r JOIN game_notes n ON n.game_id = r.old_id;
INSERT INTO annotations (game_id, ply, author_id, comment, nags, updated_at)
    SELECT r.new_id, a.ply, a.author_id, a.comment, a.nags, a.updated_at
    FROM refiled r JOIN annotations a ON a.game_id = r.old_id;
INSERT INTO game_positions (position_key, game_id, next, ply)
    SELECT p.position_key, r.new_id, p.next, p.ply
    FROM refiled r JOIN game_positions p ON p.game_id = r.old_id;
INSERT INTO staged_positions (position_key, game_id, next, ply)
    SELECT s.position_key, r.new_id, s.next, s.ply
    FROM refiled r JOIN staged_positions s ON s.game_id = r.old_id;
-- Games stored before moves were packed keep their moves in this table
-- until the server's first start packs them (migration 30).
CREATE TABLE IF NOT EXISTS legacy_moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    san TEXT NOT NULL,
    position_key BIGINT NOT NULL,
    played_at BIGINT,
    PRIMARY KEY (game_id, ply)
);
INSERT INTO legacy_moves (game_id, ply, uci, san, position_key, played_at)
    SELECT r.new_id, m.ply, m.uci, m.san, m.position_key, m.played_at
    FROM refiled r JOIN legacy_moves m ON m.game_id = r.old_id;
UPDATE collection_games SET game_id = (
        SELECT r.new_id FROM refiled r
        WHERE r.old_id = collection_games.game_id
            AND r.collection_id = collection_games.collection_id)
    WHERE EXISTS (
        SELECT 1 FROM refiled r
        WHERE r.old_id = collection_games.game_id
            AND r.collection_id = collection_games.collection_id);
UPDATE games SET import_key = (
        SELECT min(cg.collection_id) FROM collection_games cg WHERE cg.game_id = games.id)
        || substr(import_key, strpos(import_key, ':'))
    WHERE import_key IS NOT NULL
        AND id NOT IN (SELECT new_id FROM refiled)
        AND EXISTS (SELECT 1 FROM collection_games cg WHERE cg.game_id = games.id);

-- The explorer's counts: for each position of a rule set, the games of a
-- scope that played each move from it (`next`, its number among the
-- position's legal moves, docs/spec/packed-moves.md), and how they ended.
-- A game leaving a position by k moves adds k - 1 to the row `next = -1`,
-- so that the position's total (each game once) is the moves' sum less
-- that row. Scopes: '' for finished played games, a collection's id for
-- its games. The explorer reads a few rows per scope whatever the number
-- of games, where the position index has a row a game.
CREATE TABLE explorer_counts (
    scope TEXT NOT NULL,
    rules TEXT NOT NULL,
    position_key BIGINT NOT NULL,
    next SMALLINT NOT NULL,
    games BIGINT NOT NULL,
    white BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    black BIGINT NOT NULL,
    PRIMARY KEY (scope, rules, position_key, next)
);
-- The counts of the games a bulk import (`kingpost pgn import`) stores,
-- appended a batch at a time and added to the counts at the import's end,
-- as its positions are to the index (migration 32).
CREATE TABLE staged_counts (
    scope TEXT NOT NULL,
    rules TEXT NOT NULL,
    position_key BIGINT NOT NULL,
    next SMALLINT NOT NULL,
    games BIGINT NOT NULL,
    white BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    black BIGINT NOT NULL
);
-- Counted from the index: the games a server packs at its first start
-- (migration 30) are counted as they are indexed, and the positions an
-- import left staged have no counts to stage: they are counted here, as
-- their games' rows are joined.
WITH counted AS (
    SELECT p.position_key, p.game_id, p.next, g.rules, '' AS scope, g.result
    FROM game_positions p JOIN games g ON g.id = p.game_id
    WHERE p.next <> -1 AND g.status = 'finished'
    UNION ALL
    SELECT p.position_key, p.game_id, p.next, g.rules, cg.collection_id, g.result
    FROM game_positions p JOIN games g ON g.id = p.game_id
    JOIN collection_games cg ON cg.game_id = p.game_id
    WHERE p.next <> -1 AND g.status = 'imported'
    UNION ALL
    SELECT s.position_key, s.game_id, s.next, g.rules, cg.collection_id, g.result
    FROM (SELECT DISTINCT position_key, game_id, next FROM staged_positions) s
    JOIN games g ON g.id = s.game_id
    JOIN collection_games cg ON cg.game_id = s.game_id
    WHERE s.next <> -1 AND g.status = 'imported'
), tallied AS (
    SELECT scope, rules, position_key, next, result, COUNT(*) AS games
    FROM counted GROUP BY scope, rules, position_key, next, result
    UNION ALL
    SELECT scope, rules, position_key, -1, result, COUNT(*) - 1
    FROM counted GROUP BY scope, rules, position_key, game_id, result
    HAVING COUNT(*) > 1
)
INSERT INTO explorer_counts (scope, rules, position_key, next, games, white, draws, black)
    SELECT scope, rules, position_key, next, SUM(games),
        SUM(CASE WHEN result = '1-0' THEN games ELSE 0 END),
        SUM(CASE WHEN result = '1/2-1/2' THEN games ELSE 0 END),
        SUM(CASE WHEN result = '0-1' THEN games ELSE 0 END)
    FROM tallied GROUP BY scope, rules, position_key, next;
