ALTER TABLE entry_players
    ADD COLUMN failed_pin_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN pin_locked_until timestamptz;
