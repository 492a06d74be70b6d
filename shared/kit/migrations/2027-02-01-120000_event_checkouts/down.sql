DROP TABLE IF EXISTS event_checkouts;
