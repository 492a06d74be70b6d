-- A delivery that failed its last try is a dead letter: `dead_at` says when, and the admin may
-- replay it (back to pending, its tries counted from 0).
ALTER TABLE webhook_deliveries ADD COLUMN dead_at timestamptz;
UPDATE webhook_deliveries d
SET dead_at = coalesce(
    (SELECT max(a.attempted_at) FROM webhook_attempts a WHERE a.delivery_id = d.id),
    d.created_at)
WHERE status = 'failed';
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (dead_at DESC, id) WHERE status = 'failed';
