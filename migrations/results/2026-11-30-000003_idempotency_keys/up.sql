-- Requests made with an Idempotency-Key, remembered for 24 hours with the response they got.
CREATE TABLE idempotency_keys (
    api_key_id uuid NOT NULL,
    key text NOT NULL,
    request_hash bytea NOT NULL,
    status integer NOT NULL,
    -- {body, etag}
    response jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
