-- Issue 41: a round whose drawn tables the director changed by hand (two players swapped) says so.
ALTER TABLE rounds ADD COLUMN changed_by_hand boolean NOT NULL DEFAULT false;
