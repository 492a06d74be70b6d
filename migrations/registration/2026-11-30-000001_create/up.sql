-- Registration owns the federation's people and events: regions, players, events, entries,
-- API keys, and the keys that sign access tokens.
CREATE TABLE regions (
    id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE players (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    region_id uuid REFERENCES regions (id),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE events (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    region_id uuid REFERENCES regions (id),
    format text NOT NULL,
    qualifying_rounds integer NOT NULL CHECK (qualifying_rounds BETWEEN 1 AND 15),
    small_field_playoff text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE entries (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events (id),
    player_id uuid NOT NULL REFERENCES players (id),
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'dropped', 'excluded')),
    status_reason text,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, player_id)
);
CREATE INDEX entries_by_event ON entries (event_id, created_at);

CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    role text NOT NULL CHECK (role IN ('admin', 'director', 'scorer')),
    event_ids uuid[],
    secret_sha256 bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

CREATE TABLE signing_keys (
    kid text PRIMARY KEY,
    seed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
