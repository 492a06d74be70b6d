-- PIN digests are keyed from now on: HMAC-SHA256 under CATAN_PIN_KEY, a secret kept outside the
-- database. The digests made before were unkeyed SHA-256 and cannot be re-keyed (a PIN is shown
-- once and never kept): they are cleared, so those players' sign-ins answer 401 until their
-- event's director reissues their PINs (POST /v1/events/{id}/players/{player_id}/pin).
UPDATE entry_players SET pin_sha256 = NULL WHERE pin_sha256 IS NOT NULL;

-- The key registration uses when CATAN_PIN_KEY is not configured (a service run alone): one row,
-- made at the first start. It sits beside the digests, so a deployment configures its own.
CREATE TABLE pin_key (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    secret bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
