ALTER TABLE events DROP COLUMN minutes_per_game;
