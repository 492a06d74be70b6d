-- Writes of one event no longer wait for each other (only writes of one table do, on its row), so
-- change numbers no longer commit in order: an event's change feed is read as the federation's
-- is, by (writing transaction, change number) below the oldest transaction still in flight.
DROP INDEX results_changes;
CREATE INDEX results_event_feed ON results (event_id, txid, seq);
-- Change numbers come from the sequence, so they are unique without an index of their own: one
-- index fewer to write for every result.
ALTER TABLE results DROP CONSTRAINT results_seq_key;
