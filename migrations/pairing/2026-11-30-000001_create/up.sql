-- Pairing owns the draws: each event's rounds, their tables and seats, the seed each round was
-- drawn from and the engine's figures, and the stable numbers the engine knows players by.
CREATE TABLE participants (
    event_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    player_id uuid NOT NULL,
    number integer NOT NULL,
    PRIMARY KEY (event_id, entry_id),
    UNIQUE (event_id, number)
);

CREATE TABLE rounds (
    event_id uuid NOT NULL,
    number integer NOT NULL CHECK (number >= 1),
    stage text NOT NULL CHECK (stage IN ('qualifying', 'semifinal', 'final')),
    -- Seeds are kept below 2^53 so that they survive JSON numbers in every language.
    seed bigint NOT NULL CHECK (seed >= 0 AND seed < 9007199254740992),
    figures jsonb NOT NULL,
    drawn_at timestamptz NOT NULL DEFAULT now(),
    drawn_by uuid NOT NULL,
    PRIMARY KEY (event_id, number)
);

CREATE TABLE round_tables (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    number integer NOT NULL CHECK (number >= 1),
    -- [{position, entry_id, player_id}] in play order
    seats jsonb NOT NULL,
    explanation jsonb NOT NULL,
    PRIMARY KEY (event_id, round, number),
    FOREIGN KEY (event_id, round) REFERENCES rounds (event_id, number)
);
