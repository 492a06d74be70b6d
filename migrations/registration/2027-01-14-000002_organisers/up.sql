-- An organiser key runs the events of the regions it names.
ALTER TABLE api_keys ADD COLUMN region_ids uuid[];
