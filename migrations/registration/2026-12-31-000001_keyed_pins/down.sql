-- The cleared digests are not restored: their PINs are reissued.
DROP TABLE pin_key;
