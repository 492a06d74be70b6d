-- Partner events: teams of two as entries, each player in at most one entry of an event; the
-- event's partner rules and board mode.
ALTER TABLE events
    ADD COLUMN partner_rules jsonb,
    ADD COLUMN board_mode text NOT NULL DEFAULT 'each_table';

ALTER TABLE entries
    ALTER COLUMN player_id DROP NOT NULL,
    ADD COLUMN team_name text;

CREATE TABLE entry_players (
    event_id uuid NOT NULL,
    entry_id uuid NOT NULL REFERENCES entries (id),
    player_id uuid NOT NULL REFERENCES players (id),
    position integer NOT NULL,
    -- A player plays for one entry of an event.
    PRIMARY KEY (event_id, player_id)
);
CREATE INDEX entry_players_by_entry ON entry_players (entry_id);

INSERT INTO entry_players (event_id, entry_id, player_id, position)
SELECT event_id, id, player_id, 0 FROM entries WHERE player_id IS NOT NULL;
