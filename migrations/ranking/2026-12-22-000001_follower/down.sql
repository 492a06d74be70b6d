ALTER TABLE event_views ALTER COLUMN standings SET COMPRESSION default;
ALTER TABLE event_views ALTER COLUMN placements SET COMPRESSION default;
ALTER TABLE season_inputs ALTER COLUMN body SET COMPRESSION default;
ALTER TABLE ratings_stale DROP COLUMN marked;
