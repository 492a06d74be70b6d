-- Each event's entries' version, numbered anew whenever the follower copies a change of one of
-- them: the follower keeps an event's entries parsed while their version stands, instead of
-- reading a large event's thousand entries again for every new result.
CREATE TABLE entry_versions (
    event_id uuid PRIMARY KEY,
    version bigserial NOT NULL
);

-- Merged identities, which every season table and ratings replay looks up: a few among many
-- players.
CREATE INDEX players_merged ON players (id) WHERE body->>'merged_into' IS NOT NULL;
