-- Ranking becomes the federation's read model: copies of registration's events, entries and
-- players and of every event's results, kept up to date from the producers' change feeds by a
-- follower, and each event's standings and placements computed once per change and served as
-- stored. No read calls another service.
DROP TABLE feed_cursors;

CREATE TABLE events (
    id uuid PRIMARY KEY,
    -- registration's Event
    body jsonb NOT NULL,
    changed_at timestamptz NOT NULL
);

CREATE TABLE entries (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL,
    -- registration's Entry
    body jsonb NOT NULL,
    changed_at timestamptz NOT NULL
);
CREATE INDEX entries_by_event ON entries (event_id);

CREATE TABLE players (
    id uuid PRIMARY KEY,
    -- registration's Player
    body jsonb NOT NULL,
    changed_at timestamptz NOT NULL
);

-- How far the follower has read each producer's feed, when a read last reached its end (and the
-- views were then brought up to date), and since when the producer cannot be read.
CREATE TABLE feeds (
    name text PRIMARY KEY,
    next text NOT NULL DEFAULT '',
    caught_up_at timestamptz,
    failing_since timestamptz,
    last_error text
);
INSERT INTO feeds (name) VALUES ('registration'), ('results');

-- Events whose views must be computed again, and the change that asked last (so that a change
-- arriving while a view is computed is not lost).
CREATE TABLE stale_views (
    event_id uuid PRIMARY KEY,
    marked bigserial NOT NULL
);

-- Each event's standings and placements, as served.
CREATE TABLE event_views (
    event_id uuid PRIMARY KEY,
    standings text NOT NULL,
    standings_etag text NOT NULL,
    placements text NOT NULL,
    placements_etag text NOT NULL,
    as_of timestamptz NOT NULL
);

-- Results read before this migration are read again from the federation-wide feed.
DELETE FROM known_results;
