ALTER TABLE season_views DROP COLUMN players, DROP COLUMN ranks;
DROP TABLE season_rows;
CREATE TABLE season_rows (
    season_id uuid NOT NULL,
    position integer NOT NULL,
    player_id uuid NOT NULL,
    region_id uuid,
    body text NOT NULL,
    summary text NOT NULL,
    csv text NOT NULL,
    PRIMARY KEY (season_id, position)
);
CREATE INDEX season_rows_by_region ON season_rows (season_id, region_id, position);
CREATE INDEX season_rows_by_player ON season_rows (player_id);
INSERT INTO seasons_stale (season_id) SELECT id FROM seasons ON CONFLICT (season_id) DO NOTHING;
