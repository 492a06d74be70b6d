-- Players sign in for an event with a PIN given at entry, to confirm or dispute results; wrong
-- PINs lock the sign-in for a while. Events say which results their standings count.
ALTER TABLE entry_players
    ADD COLUMN pin_sha256 bytea,
    ADD COLUMN failed_pin_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN pin_locked_until timestamptz;

ALTER TABLE events
    ADD COLUMN standings_count text NOT NULL DEFAULT 'posted' CHECK (standings_count IN ('posted', 'confirmed'));
