DROP TABLE ratings_as_of;
ALTER TABLE ratings_stale DROP COLUMN as_of;
