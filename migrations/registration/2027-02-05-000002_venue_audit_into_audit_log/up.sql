-- The venues' audit records move into the suite's own log, whose `venue` and `service` columns
-- (a kit migration) now say where each was made; one table, one search.
INSERT INTO audit_log (id, at, key_id, role, method, route, targets, event_ids, region_ids, status, venue, service)
SELECT id, at, key_id, role, method, route, targets, event_ids, region_ids, status, venue, service
FROM venue_audit_log
ON CONFLICT (id) DO NOTHING;
DROP TABLE venue_audit_log;
