DROP TRIGGER players_changed ON players;
DROP TRIGGER entries_changed ON entries;
DROP TRIGGER events_changed ON events;
DROP FUNCTION record_change();
DROP TABLE changes;
