DROP TABLE entry_players;
ALTER TABLE entries DROP COLUMN team_name;
DELETE FROM entries WHERE player_id IS NULL;
ALTER TABLE entries ALTER COLUMN player_id SET NOT NULL;
ALTER TABLE events DROP COLUMN board_mode, DROP COLUMN partner_rules;
