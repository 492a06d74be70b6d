ALTER TABLE rounds DROP COLUMN changed_by_hand;
