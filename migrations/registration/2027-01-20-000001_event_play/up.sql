-- An event's status follows its play (issue 33): running from its first round drawn, finished
-- once its placements are complete, whatever the calendar says. Pairing's `round.drawn` and
-- ranking's `event.finished` reach registration's inbox, which records when each first came.
ALTER TABLE events ADD COLUMN play_started_at timestamptz, ADD COLUMN play_finished_at timestamptz;
