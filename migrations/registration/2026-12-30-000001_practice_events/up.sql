-- A practice event lets its director choose a draw's seed; a real event's seeds are the server's.
ALTER TABLE events ADD COLUMN practice boolean NOT NULL DEFAULT false;
