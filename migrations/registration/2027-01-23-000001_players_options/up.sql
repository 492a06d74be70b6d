-- Issue 31, the players' own options: whether players report their tables' results ('off':
-- staff only; 'confirm': staff post, players confirm, as before; 'report': a seated player posts
-- the first sheet), and whether a player may drop themselves from the event.
ALTER TABLE events
    ADD COLUMN player_reporting text NOT NULL DEFAULT 'confirm'
        CHECK (player_reporting IN ('off', 'confirm', 'report')),
    ADD COLUMN players_may_drop boolean NOT NULL DEFAULT false;
