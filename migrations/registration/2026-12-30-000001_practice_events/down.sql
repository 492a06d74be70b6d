ALTER TABLE events DROP COLUMN practice;
