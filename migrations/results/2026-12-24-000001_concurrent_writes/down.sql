ALTER TABLE results ADD CONSTRAINT results_seq_key UNIQUE (seq);
DROP INDEX results_event_feed;
CREATE INDEX results_changes ON results (event_id, seq);
