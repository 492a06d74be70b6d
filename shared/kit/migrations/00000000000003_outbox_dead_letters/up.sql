-- An outbox event the relay could not hand over within CATAN_WEBHOOKS_RELAY_MAX_ATTEMPTS tries
-- is a dead letter: kept, with its last error, and no longer tried until the admin replays it.
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS dead_at timestamptz;
-- The relay reads only the live events; the admin's list reads only the dead ones.
DROP INDEX IF EXISTS outbox_due;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE dead_at IS NULL;
CREATE INDEX outbox_dead ON outbox (dead_at DESC, id) WHERE dead_at IS NOT NULL;
