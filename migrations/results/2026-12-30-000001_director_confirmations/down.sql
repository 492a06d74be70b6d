ALTER TABLE confirmations DROP COLUMN on_behalf_by;
