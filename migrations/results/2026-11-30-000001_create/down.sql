DROP TABLE result_versions;
DROP TABLE results;
DROP SEQUENCE result_seq;
