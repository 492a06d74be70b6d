ALTER TABLE events DROP COLUMN player_reporting, DROP COLUMN players_may_drop;
