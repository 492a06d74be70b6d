-- Wrong PINs are held to the caller's address (the services' ClientLimits), never to the player:
-- the per-player count and lock of before are read and written by nothing.
ALTER TABLE entry_players DROP COLUMN failed_pin_attempts, DROP COLUMN pin_locked_until;
