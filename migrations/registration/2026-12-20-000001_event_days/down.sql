DROP INDEX events_by_day;
ALTER TABLE events
    DROP COLUMN search_name,
    DROP COLUMN venue,
    DROP COLUMN ends_on,
    DROP COLUMN starts_on;
