-- A season's table is stored as one row a player, without its rank, and the table's order (each
-- place's player and rank) as two arrays of its view. A result moves a few players and shifts
-- every row between their old and new places: stored by place with their ranks, most of a large
-- table's rows were written again for each new result; now only the rows of players whose own
-- figures changed are, found by their digests, and the order once.
DROP TABLE season_rows;
CREATE TABLE season_rows (
    season_id uuid NOT NULL,
    player_id uuid NOT NULL,
    region_id uuid,
    -- the row's JSON, its JSON without per-event results, and its CSV line, each without the
    -- rank that leads it (added as a page is read)
    body text NOT NULL,
    summary text NOT NULL,
    csv text NOT NULL,
    -- a digest of the row, so that a new table sends PostgreSQL only the rows that changed
    digest bigint NOT NULL,
    PRIMARY KEY (season_id, player_id)
);
CREATE INDEX season_rows_by_player ON season_rows (player_id);

ALTER TABLE season_views
    ADD COLUMN players uuid[] NOT NULL DEFAULT '{}',
    ADD COLUMN ranks integer[] NOT NULL DEFAULT '{}';
-- Every table is computed again; until then each season serves a new, empty version.
UPDATE season_views SET etag = '"' || md5(etag || ' reordered') || '"';
INSERT INTO seasons_stale (season_id) SELECT id FROM seasons ON CONFLICT (season_id) DO NOTHING;
