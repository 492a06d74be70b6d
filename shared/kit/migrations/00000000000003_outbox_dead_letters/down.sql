DROP INDEX outbox_dead;
DROP INDEX outbox_due;
CREATE INDEX outbox_due ON outbox (next_attempt_at);
ALTER TABLE outbox DROP COLUMN dead_at;
