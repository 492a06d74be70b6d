ALTER TABLE season_inputs ALTER COLUMN body TYPE jsonb USING body::jsonb;
DROP INDEX rating_history_by_game;
DROP TABLE merges;
CREATE INDEX players_merged ON players (id) WHERE body->>'merged_into' IS NOT NULL;
