ALTER TABLE api_keys DROP COLUMN region_ids;
