-- One identity: a duplicate player is marked as merged into the player who survives. Nothing else
-- is rewritten: whoever reads a history (ranking) maps the duplicate's onto the survivor.
ALTER TABLE players ADD COLUMN merged_into uuid REFERENCES players (id);
