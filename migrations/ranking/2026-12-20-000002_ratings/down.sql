DROP TABLE ratings_stale;
DROP TABLE ratings;
DROP TABLE rating_history;
ALTER TABLE events DROP COLUMN starts_on;
