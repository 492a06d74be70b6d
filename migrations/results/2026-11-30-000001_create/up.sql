-- Results owns the signed results sheets: the current version of each table's result, every
-- version ever recorded, and a per-event change sequence other services read changes by.
CREATE SEQUENCE result_seq;

CREATE TABLE results (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    stage text NOT NULL CHECK (stage IN ('qualifying', 'semifinal', 'final')),
    round_tables integer NOT NULL,
    version integer NOT NULL,
    -- Given under the event's lock, so an event's changes commit in seq order.
    seq bigint NOT NULL UNIQUE,
    -- {outcome, winner_player_id, scores: [{player_id, vp, credited_vp, breakdown}]}
    sheet jsonb NOT NULL,
    recorded_at timestamptz NOT NULL,
    recorded_by uuid NOT NULL,
    PRIMARY KEY (event_id, round, table_number)
);
CREATE INDEX results_changes ON results (event_id, seq);

CREATE TABLE result_versions (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    version integer NOT NULL,
    stage text NOT NULL,
    round_tables integer NOT NULL,
    seq bigint NOT NULL,
    sheet jsonb NOT NULL,
    recorded_at timestamptz NOT NULL,
    recorded_by uuid NOT NULL,
    PRIMARY KEY (event_id, round, table_number, version)
);
