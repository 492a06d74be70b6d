-- The audit records a venue's publish brought (issue 34): each as the venue's service recorded it
-- (its id, its service, its time), with the venue it was made at. Kept apart from the suite's
-- own audit_log, which only the suite's writes fill; `GET /v1/audit` merges both.
CREATE TABLE venue_audit_log (
    id uuid PRIMARY KEY,
    at timestamptz NOT NULL,
    service text NOT NULL,
    venue text NOT NULL,
    key_id uuid NOT NULL,
    role text NOT NULL,
    method text NOT NULL,
    route text NOT NULL,
    targets jsonb NOT NULL,
    event_ids uuid[] NOT NULL,
    region_ids uuid[] NOT NULL,
    status integer NOT NULL
);
CREATE INDEX venue_audit_log_at ON venue_audit_log (at, id);
CREATE INDEX venue_audit_log_events ON venue_audit_log USING gin (event_ids);
