-- An imported game's own ECO and Opening tags, as its PGN writes them: what
-- a search by ECO code or opening name matches first (`eco` and `opening`
-- stay the names the tables compute from the moves).
ALTER TABLE games ADD COLUMN tagged_eco TEXT;
ALTER TABLE games ADD COLUMN tagged_opening TEXT;

-- The first tag of each name, unless blank or `?`.
UPDATE games SET
    tagged_eco = (
        SELECT trim(t.value->>1) FROM jsonb_array_elements(games.source_tags::jsonb)
            WITH ORDINALITY AS t(value, n)
        WHERE t.value->>0 = 'ECO' ORDER BY t.n LIMIT 1
    ),
    tagged_opening = (
        SELECT trim(t.value->>1) FROM jsonb_array_elements(games.source_tags::jsonb)
            WITH ORDINALITY AS t(value, n)
        WHERE t.value->>0 = 'Opening' ORDER BY t.n LIMIT 1
    )
WHERE source_tags IS NOT NULL;
UPDATE games SET tagged_eco = NULL WHERE tagged_eco IN ('', '?');
UPDATE games SET tagged_opening = NULL WHERE tagged_opening IN ('', '?');
CREATE INDEX games_by_tagged_eco ON games (tagged_eco) WHERE tagged_eco IS NOT NULL;
