ALTER TABLE event_views DROP COLUMN finished;
ALTER TABLE seasons_stale DROP COLUMN pending_registration, DROP COLUMN pending_results,
    DROP COLUMN pending_ranking;
ALTER TABLE ratings_stale_games DROP COLUMN pending_registration, DROP COLUMN pending_results;
ALTER TABLE ratings_stale DROP COLUMN pending_registration, DROP COLUMN pending_results;
ALTER TABLE stale_views DROP COLUMN pending_registration, DROP COLUMN pending_results;
ALTER TABLE feeds DROP COLUMN read_through;
