-- A round's clock (issue 32) is the log of its director's actions: the clock is replayed from
-- it, so any instant of the round's history reads the same on every replica.
CREATE TABLE round_clock_actions (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    seq integer NOT NULL CHECK (seq >= 1),
    -- Milliseconds, as the domain's clock counts.
    at timestamptz NOT NULL,
    -- catan_domain::clock::DirectorAction as JSON.
    action jsonb NOT NULL,
    taken_by uuid NOT NULL,
    PRIMARY KEY (event_id, round, seq),
    FOREIGN KEY (event_id, round) REFERENCES rounds (event_id, number)
);

-- The clock's webhook notices sent, each once across replicas: a notice is known by its kind and
-- the instant it announces (catan_domain::clock::Notice::key).
CREATE TABLE round_clock_notices (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    kind text NOT NULL CHECK (kind IN ('started', 'ending', 'ended')),
    announces timestamptz NOT NULL,
    due_at timestamptz NOT NULL,
    sent_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (event_id, round, kind, announces)
);
