ALTER TABLE rounds DROP COLUMN seed_chosen;
