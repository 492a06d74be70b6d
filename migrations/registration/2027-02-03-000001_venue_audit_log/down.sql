DROP TABLE IF EXISTS venue_audit_log;
