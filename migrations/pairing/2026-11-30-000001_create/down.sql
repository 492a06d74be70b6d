DROP TABLE round_tables;
DROP TABLE rounds;
DROP TABLE participants;
