-- When a dropped or excluded entry left the event (issue 41): it may be reinstated only while no
-- round has been drawn since. Entries that left before this column have none: they count as
-- having left when they were made.
ALTER TABLE entries ADD COLUMN left_at timestamptz;
