DROP INDEX entries_by_player;
DROP TABLE season_views;
DROP TABLE season_rows;
DROP TABLE seasons_stale;
DROP TABLE season_inputs;
DROP TABLE season_declines;
DROP TABLE season_events;
DROP TABLE seasons;
