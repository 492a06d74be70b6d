ALTER TABLE audit_log DROP CONSTRAINT IF EXISTS audit_log_venue_names_its_service;
ALTER TABLE audit_log DROP COLUMN IF EXISTS service, DROP COLUMN IF EXISTS venue;
