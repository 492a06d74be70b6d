DROP TABLE keep_apart_pairs;
