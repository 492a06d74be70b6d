-- Read your own writes (`Catan-Position`). A write is in the read model once its producer's feed
-- is read past it and nothing it marked stale still waits.
--
-- read_through: the last transaction of the producer whose changes are all copied (every one up
-- to it has ended and its changes were read).
ALTER TABLE feeds ADD COLUMN read_through bigint NOT NULL DEFAULT 0;

-- Each stale mark keeps, for each producer, a lower bound of the transactions of the changes it
-- does not include yet (NULL: none of that producer's): a read waits for a write only while a
-- mark it concerns holds a bound at or below the write's transaction. Marks made before this
-- migration concern every write.
ALTER TABLE stale_views ADD COLUMN pending_registration bigint, ADD COLUMN pending_results bigint;
UPDATE stale_views SET pending_registration = 0, pending_results = 0;

ALTER TABLE ratings_stale ADD COLUMN pending_registration bigint, ADD COLUMN pending_results bigint;
UPDATE ratings_stale SET pending_registration = 0, pending_results = 0;

ALTER TABLE ratings_stale_games
    ADD COLUMN pending_registration bigint, ADD COLUMN pending_results bigint;
UPDATE ratings_stale_games SET pending_registration = 0, pending_results = 0;

-- A season's table also waits for ranking's own writes (a join, a decline, the season itself).
ALTER TABLE seasons_stale ADD COLUMN pending_registration bigint,
    ADD COLUMN pending_results bigint, ADD COLUMN pending_ranking bigint;
UPDATE seasons_stale SET pending_registration = 0, pending_results = 0, pending_ranking = 0;

-- Whether an event's placements are complete, as its views last said: the follower announces
-- `event.finished` (through the outbox, to registration and the webhooks) when they first are.
ALTER TABLE event_views ADD COLUMN finished boolean NOT NULL DEFAULT false;
