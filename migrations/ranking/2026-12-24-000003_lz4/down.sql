ALTER TABLE season_views ALTER COLUMN ranks SET COMPRESSION default;
ALTER TABLE season_views ALTER COLUMN players SET COMPRESSION default;
ALTER TABLE season_views ALTER COLUMN qualified SET COMPRESSION default;
