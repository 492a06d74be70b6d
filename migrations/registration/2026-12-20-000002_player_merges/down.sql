ALTER TABLE players DROP COLUMN merged_into;
