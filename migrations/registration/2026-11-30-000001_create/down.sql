DROP TABLE signing_keys;
DROP TABLE api_keys;
DROP TABLE entries;
DROP TABLE events;
DROP TABLE players;
DROP TABLE regions;
