-- Pairs of players the director keeps apart (same family or club): never at one table in round 1,
-- later only when no draw avoids it. Stored with the smaller id first.
CREATE TABLE keep_apart_pairs (
    event_id uuid NOT NULL,
    player_a uuid NOT NULL,
    player_b uuid NOT NULL,
    PRIMARY KEY (event_id, player_a, player_b),
    CHECK (player_a < player_b)
);
