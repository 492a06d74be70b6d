-- Ratings: every rated game's μ and σ before and after for each of its players, in the order the
-- games were played (event date, event, round, table), and each player's current rating. A change
-- marks the events it touches with the first round it affects; the ratings are replayed from the
-- earliest such game.
ALTER TABLE events ADD COLUMN starts_on date NOT NULL DEFAULT '1970-01-01';

CREATE TABLE rating_history (
    played_on date NOT NULL,
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    player_id uuid NOT NULL,
    mu_before double precision NOT NULL,
    sigma_before double precision NOT NULL,
    mu_after double precision NOT NULL,
    sigma_after double precision NOT NULL,
    PRIMARY KEY (played_on, event_id, round, table_number, player_id)
);
CREATE INDEX rating_history_by_player ON rating_history (player_id, played_on, event_id, round, table_number);

CREATE TABLE ratings (
    player_id uuid PRIMARY KEY,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    -- μ − 3σ, what the leaderboard sorts by
    rating double precision NOT NULL,
    games integer NOT NULL
);
CREATE INDEX ratings_leaderboard ON ratings (rating DESC, player_id);

-- Events whose games changed, with the first round changed; the nil event asks for a replay
-- from the first game (a merge of two players).
CREATE TABLE ratings_stale (
    event_id uuid PRIMARY KEY,
    from_round integer NOT NULL
);
