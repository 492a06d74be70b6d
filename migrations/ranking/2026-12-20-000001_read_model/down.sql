DROP TABLE event_views;
DROP TABLE stale_views;
DROP TABLE feeds;
DROP TABLE players;
DROP TABLE entries;
DROP TABLE events;
CREATE TABLE feed_cursors (
    event_id uuid PRIMARY KEY,
    last_seq bigint NOT NULL
);
