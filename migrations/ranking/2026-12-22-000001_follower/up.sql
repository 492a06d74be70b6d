-- The stored views are rewritten every time their event changes (a 1,000-player event's standings
-- are 257 KB): lz4 compresses them several times faster than the default pglz.
ALTER TABLE event_views ALTER COLUMN standings SET COMPRESSION lz4;
ALTER TABLE event_views ALTER COLUMN placements SET COMPRESSION lz4;
ALTER TABLE season_inputs ALTER COLUMN body SET COMPRESSION lz4;

-- The ratings replay on their own while the follower marks new games: each mark is numbered
-- anew, so that a replay clears only the marks it read and never one made meanwhile.
ALTER TABLE ratings_stale ADD COLUMN marked bigserial NOT NULL;
