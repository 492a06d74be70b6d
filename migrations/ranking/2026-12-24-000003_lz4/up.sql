-- lz4 for the rest of the large values written on every change, as 2026-12-22's migration chose
-- it for the event views (200 upserts of 270 KB of standings: 870 ms of PostgreSQL with the
-- default pglz, 140 ms with lz4, on the 2-core machine): a season's order (a thousand players'
-- ids and ranks) and qualified players, and the season inputs, whose column changed type.
ALTER TABLE season_inputs ALTER COLUMN body SET COMPRESSION lz4;
ALTER TABLE season_views ALTER COLUMN qualified SET COMPRESSION lz4;
ALTER TABLE season_views ALTER COLUMN players SET COMPRESSION lz4;
ALTER TABLE season_views ALTER COLUMN ranks SET COMPRESSION lz4;
