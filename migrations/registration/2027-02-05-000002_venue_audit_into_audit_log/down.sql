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
INSERT INTO venue_audit_log
SELECT id, at, service, venue, key_id, role, method, route, targets, event_ids, region_ids, status
FROM audit_log WHERE venue IS NOT NULL;
DELETE FROM audit_log WHERE venue IS NOT NULL;
