-- An event checked out to a venue (issue 34): the venue's name, its Ed25519 public key (base64url,
-- which its publish is signed with) and since when; all three or none. On the event's row, so
-- that every read of the event shows it and a write to the event checks it holding the row.
ALTER TABLE events
    ADD COLUMN checkout_venue text,
    ADD COLUMN checkout_public_key text,
    ADD COLUMN checked_out_at timestamptz,
    ADD CONSTRAINT events_checkout_whole CHECK (
        (checkout_venue IS NULL) = (checkout_public_key IS NULL)
        AND (checkout_venue IS NULL) = (checked_out_at IS NULL)
    );
