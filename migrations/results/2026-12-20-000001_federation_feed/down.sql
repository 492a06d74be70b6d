DROP TRIGGER results_stamp_writing_transaction ON results;
DROP FUNCTION stamp_writing_transaction();
ALTER TABLE results DROP COLUMN txid;
