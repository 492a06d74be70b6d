DROP INDEX players_merged;
DROP TABLE entry_versions;
