-- Ranking keeps its own copy of each event's results, read from the results service's change
-- feed, and how far it has read. Standings are computed from this copy.
CREATE TABLE known_results (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    stage text NOT NULL,
    seq bigint NOT NULL,
    -- the results service's TableResult
    result jsonb NOT NULL,
    PRIMARY KEY (event_id, round, table_number)
);

CREATE TABLE feed_cursors (
    event_id uuid PRIMARY KEY,
    last_seq bigint NOT NULL
);
