-- Records a venue's publish brought (issue 34) are kept in the log beside the suite's own: the
-- venue they were made at, and the service that made them there. Both are null for a record this
-- service made itself.
ALTER TABLE audit_log
    ADD COLUMN IF NOT EXISTS venue text,
    ADD COLUMN IF NOT EXISTS service text;
ALTER TABLE audit_log
    ADD CONSTRAINT audit_log_venue_names_its_service CHECK ((venue IS NULL) = (service IS NULL));
