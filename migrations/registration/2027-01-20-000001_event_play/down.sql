ALTER TABLE events DROP COLUMN play_started_at, DROP COLUMN play_finished_at;
