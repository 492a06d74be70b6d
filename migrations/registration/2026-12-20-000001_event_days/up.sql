-- Events are held from `starts_on` through `ends_on` (one day unless said so), at a venue. Events
-- made before had no days: they start and end on the day they were made (UTC). Their names are
-- searched as players' are, folded by the database (fold_name: lower case without accents).
ALTER TABLE events
    ADD COLUMN starts_on date,
    ADD COLUMN ends_on date,
    ADD COLUMN venue text,
    ADD COLUMN search_name text NOT NULL GENERATED ALWAYS AS (fold_name(name)) STORED;
UPDATE events
SET starts_on = (created_at AT TIME ZONE 'UTC')::date,
    ends_on = (created_at AT TIME ZONE 'UTC')::date;
ALTER TABLE events
    ALTER COLUMN starts_on SET NOT NULL,
    ALTER COLUMN ends_on SET NOT NULL,
    ADD CONSTRAINT events_end_on_or_after_start CHECK (ends_on >= starts_on);
-- The event list's order.
CREATE INDEX events_by_day ON events (starts_on, name, id);
