-- Issue 31: every round keeps the event's `player_reporting` it was drawn with, so that an edit
-- of the event never changes who may post or confirm a round already under way.
ALTER TABLE rounds
    ADD COLUMN player_reporting text NOT NULL DEFAULT 'confirm'
        CHECK (player_reporting IN ('off', 'confirm', 'report'));
