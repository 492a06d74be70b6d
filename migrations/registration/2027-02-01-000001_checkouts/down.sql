ALTER TABLE events
    DROP CONSTRAINT events_checkout_whole,
    DROP COLUMN checkout_venue,
    DROP COLUMN checkout_public_key,
    DROP COLUMN checked_out_at;
