-- The language of an event's venue screen (issue 32): the screen speaks it to the room,
-- whatever each viewer chose.
ALTER TABLE events ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'zh'));
