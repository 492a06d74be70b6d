ALTER TABLE entries DROP COLUMN left_at;
