-- An imported game belongs to its importer alone: until now an account
-- importing a game another had imported (same roster, moves and notes) had
-- the other's game filed in its collection, tags and all. Each such
-- account gets its own copy, holding what both files said (the roster, the
-- tags that set up the game, the moves and notes), never the first
-- importer's other tags; its collections hold the copy. Import keys are
-- prefixed with their importer, as the server now makes them.
CREATE TEMPORARY TABLE shared_imports (
    old_id TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    new_id TEXT NOT NULL,
    PRIMARY KEY (old_id, owner_id)
) ON COMMIT DROP;
INSERT INTO shared_imports (old_id, owner_id, new_id)
    SELECT old_id, owner_id, substr(replace(gen_random_uuid()::text, '-', ''), 1, 16)
    FROM (
        SELECT DISTINCT cg.game_id AS old_id, c.owner_id
        FROM collection_games cg
        JOIN collections c ON c.id = cg.collection_id
        JOIN games g ON g.id = cg.game_id
        WHERE g.status = 'imported' AND c.owner_id IS DISTINCT FROM g.imported_by
    ) shared;

INSERT INTO games (id, imported_by, import_key, source_tags,
    rules, start_kind, start_number, initial_fen, initial_key, current_fen, ply,
    status, result, termination, white_id, black_id, white_name, black_name,
    to_move_id, days_per_move, deadline_at, created_at, updated_at,
    turn_started_at, draw_offer_by, warned_ply, eco, opening, played_on, rated,
    clock, waiting_bank, holds_conditionals)
    SELECT s.new_id, s.owner_id, s.owner_id || ':' || g.import_key,
        (SELECT coalesce(json_agg(t.tag ORDER BY t.n), '[]'::json)::text
         FROM json_array_elements(g.source_tags::json) WITH ORDINALITY AS t (tag, n)
         WHERE t.tag ->> 0 IN
             ('Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result',
              'Variant', 'SetUp', 'FEN')),
        g.rules, g.start_kind, g.start_number, g.initial_fen, g.initial_key,
        g.current_fen, g.ply, g.status, g.result, g.termination, g.white_id,
        g.black_id, g.white_name, g.black_name, g.to_move_id, g.days_per_move,
        g.deadline_at, g.created_at, g.updated_at, g.turn_started_at,
        g.draw_offer_by, g.warned_ply, g.eco, g.opening, g.played_on, g.rated,
        g.clock, g.waiting_bank, g.holds_conditionals
    FROM shared_imports s JOIN games g ON g.id = s.old_id;
INSERT INTO moves (game_id, ply, uci, san, position_key, played_at)
    SELECT s.new_id, m.ply, m.uci, m.san, m.position_key, m.played_at
    FROM shared_imports s JOIN moves m ON m.game_id = s.old_id;
INSERT INTO game_notes (game_id, notes)
    SELECT s.new_id, n.notes
    FROM shared_imports s JOIN game_notes n ON n.game_id = s.old_id;
UPDATE collection_games cg SET game_id = s.new_id
    FROM shared_imports s, collections c
    WHERE s.old_id = cg.game_id AND c.id = cg.collection_id AND c.owner_id = s.owner_id;

UPDATE games SET import_key = coalesce(imported_by, '') || ':' || import_key
    WHERE import_key IS NOT NULL
        AND id NOT IN (SELECT new_id FROM shared_imports);
