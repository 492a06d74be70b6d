DROP TABLE feed_cursors;
DROP TABLE known_results;
