DROP TABLE ratings_stale_games;
DROP TABLE ratings_as_of;
ALTER TABLE ratings_stale DROP COLUMN as_of;
