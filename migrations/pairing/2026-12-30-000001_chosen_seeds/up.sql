-- Whether the director chose the round's seed (practice events only) or the server drew it.
ALTER TABLE rounds ADD COLUMN seed_chosen boolean NOT NULL DEFAULT false;
