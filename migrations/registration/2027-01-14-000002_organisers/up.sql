-- An organiser key runs the events of the regions it names.
ALTER TABLE api_keys ADD COLUMN region_ids uuid[];
ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check
    CHECK (role IN ('admin', 'organiser', 'director', 'scorer'));
