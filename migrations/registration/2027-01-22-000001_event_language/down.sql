ALTER TABLE events DROP COLUMN language;
