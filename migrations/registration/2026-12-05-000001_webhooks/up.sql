-- Webhook subscriptions (with the secrets deliveries are signed with: they never leave this
-- schema), the events the services hand over, and each event's delivery to each subscription.
CREATE TABLE webhooks (
    id uuid PRIMARY KEY,
    url text NOT NULL,
    event_types text[] NOT NULL,
    -- NULL: every event.
    event_ids uuid[],
    secret text NOT NULL,
    created_by uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);

-- The inbox: each event once, whatever the relay retries.
CREATE TABLE webhook_messages (
    id uuid PRIMARY KEY,
    event_type text NOT NULL,
    event_id uuid NOT NULL,
    payload jsonb NOT NULL,
    occurred_at timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    webhook_id uuid NOT NULL REFERENCES webhooks (id),
    message_id uuid NOT NULL REFERENCES webhook_messages (id),
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz DEFAULT now(),
    last_status_code integer,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    UNIQUE (webhook_id, message_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC);

CREATE TABLE webhook_attempts (
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id),
    number integer NOT NULL,
    attempted_at timestamptz NOT NULL DEFAULT now(),
    status_code integer,
    error text,
    duration_ms bigint NOT NULL,
    PRIMARY KEY (delivery_id, number)
);
