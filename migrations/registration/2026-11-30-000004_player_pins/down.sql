ALTER TABLE events DROP COLUMN standings_count;
ALTER TABLE entry_players DROP COLUMN pin_locked_until, DROP COLUMN failed_pin_attempts, DROP COLUMN pin_sha256;
