-- What the read model looks up or writes on every change, made cheaper.

-- Merged identities, which every season table, ratings replay and player page looks up: a few
-- among many players. The partial index on the players' JSON did not serve: PostgreSQL keeps no
-- statistics on the expression and so read every player instead. A table of its own is read
-- whole, and holds only the merges.
DROP INDEX players_merged;
CREATE TABLE merges (
    player_id uuid PRIMARY KEY,
    merged_into uuid NOT NULL
);
INSERT INTO merges (player_id, merged_into)
    SELECT id, (body->>'merged_into')::uuid FROM players WHERE body->>'merged_into' IS NOT NULL;

-- A ratings replay reads the history of the games it takes in by event, round and table.
CREATE INDEX rating_history_by_game ON rating_history (event_id, round, table_number);

-- An event's season input is written again with every change of its views and only ever read
-- whole: as text, PostgreSQL no longer parses a thousand players' JSON on every write.
ALTER TABLE season_inputs ALTER COLUMN body TYPE text USING body::text;
