ALTER TABLE result_versions DROP COLUMN voided;
ALTER TABLE results DROP COLUMN voided;
