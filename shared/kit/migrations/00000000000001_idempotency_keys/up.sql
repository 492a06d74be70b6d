-- Requests made with an Idempotency-Key, remembered for 24 hours with the response they got.
-- Owned by the kit and applied to every service's schema. IF NOT EXISTS: schemas made before the
-- kit owned this table have it from the service's own (now retired) migration.
CREATE TABLE IF NOT EXISTS idempotency_keys (
    api_key_id uuid NOT NULL,
    key text NOT NULL,
    request_hash bytea NOT NULL,
    status integer NOT NULL,
    -- {body, etag}
    response jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key_id, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (created_at);
