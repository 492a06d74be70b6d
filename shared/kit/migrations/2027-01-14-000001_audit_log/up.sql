-- The audit trail: each change a caller made through this service, written in the transaction of
-- the change. Never a body: only who, what (the route's pattern and the ids it was about), when,
-- and the answer's status.
CREATE TABLE IF NOT EXISTS audit_log (
    id uuid PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    key_id uuid NOT NULL,
    role text NOT NULL,
    method text NOT NULL,
    route text NOT NULL,
    targets jsonb NOT NULL,
    event_ids uuid[] NOT NULL,
    region_ids uuid[] NOT NULL,
    status integer NOT NULL
);
-- The trail is read in the order it was made, by key, and by event.
CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at, id);
CREATE INDEX IF NOT EXISTS audit_log_key ON audit_log (key_id, at);
CREATE INDEX IF NOT EXISTS audit_log_events ON audit_log USING gin (event_ids);
