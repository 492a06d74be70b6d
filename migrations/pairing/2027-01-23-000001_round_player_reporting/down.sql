ALTER TABLE rounds DROP COLUMN player_reporting;
