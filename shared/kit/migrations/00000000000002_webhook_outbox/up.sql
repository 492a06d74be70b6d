-- Webhook events written in the same transaction as the change they announce, until the relay
-- has handed them to registration (which signs and delivers them). Owned by the kit and applied
-- to every service's schema; IF NOT EXISTS as for idempotency_keys.
CREATE TABLE IF NOT EXISTS outbox (
    id uuid PRIMARY KEY,
    event_type text NOT NULL,
    event_id uuid NOT NULL,
    payload jsonb NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error text
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_attempt_at);
