-- Seasons (issue 8): a season's configuration and its events are written to ranking (admin); the
-- follower computes each season's table and qualification when something it depends on changes,
-- and stores them ready to serve: a page of the table is one query over pre-serialized rows.
CREATE TABLE seasons (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    region_id uuid,
    starts_on date NOT NULL,
    ends_on date NOT NULL,
    -- the API's SeasonScoring and SeasonQualification, as validated
    scoring jsonb NOT NULL,
    qualification jsonb,
    created_at timestamptz NOT NULL,
    -- the last change of the season itself: created, an event joined or left, a place declined
    changed_at timestamptz NOT NULL
);
CREATE INDEX seasons_by_region ON seasons (region_id, starts_on, name, id);

CREATE TABLE season_events (
    season_id uuid NOT NULL REFERENCES seasons (id),
    event_id uuid NOT NULL,
    PRIMARY KEY (season_id, event_id)
);
CREATE INDEX season_events_by_event ON season_events (event_id);

-- Places declined, by the player (a merged identity's survivor) or the admin.
CREATE TABLE season_declines (
    season_id uuid NOT NULL REFERENCES seasons (id),
    player_id uuid NOT NULL,
    declined_at timestamptz NOT NULL,
    PRIMARY KEY (season_id, player_id)
);

-- What a season needs of each event, computed with the event's views: field size, rounds
-- played, placements and the counted games (the players as the results name them).
CREATE TABLE season_inputs (
    event_id uuid PRIMARY KEY,
    body jsonb NOT NULL,
    as_of timestamptz NOT NULL
);

-- Seasons whose views must be computed again, and the change that asked last.
CREATE TABLE seasons_stale (
    season_id uuid PRIMARY KEY,
    marked bigserial NOT NULL
);

-- A season's table, one row a player in table order, each row's JSON (with its per-event results,
-- and without them: `summary`) and CSV line ready to serve; the region is the player's, for the
-- region filter.
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

-- A season's version (of its table and its qualified players), the last change it includes and
-- its qualified players' JSON.
CREATE TABLE season_views (
    season_id uuid PRIMARY KEY,
    etag text NOT NULL,
    as_of timestamptz NOT NULL,
    qualified text NOT NULL
);

-- A player page finds the events a player entered.
CREATE INDEX entries_by_player ON entries USING gin ((body -> 'player_ids'));

-- Every event's views are computed again, so that each gets its season inputs.
INSERT INTO stale_views (event_id) SELECT id FROM events ON CONFLICT (event_id) DO NOTHING;
