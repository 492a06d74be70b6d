-- The results sheet is signed: each seated player confirms a version, or disputes it with a
-- reason until the director resolves it with a correction.
CREATE TABLE confirmations (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    version integer NOT NULL,
    player_id uuid NOT NULL,
    confirmed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, round, table_number, version, player_id)
);

CREATE TABLE disputes (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    version integer NOT NULL,
    player_id uuid NOT NULL,
    reason text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    resolved_by_version integer,
    PRIMARY KEY (event_id, round, table_number, version, player_id)
);
CREATE INDEX disputes_by_table ON disputes (event_id, round, table_number);
