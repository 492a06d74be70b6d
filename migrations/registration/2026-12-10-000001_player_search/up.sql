-- Finding players by name whatever the case and the accents: "jose" finds "José Ñúñez".
-- The folded name is kept beside the name, computed by the database itself.
CREATE FUNCTION fold_name(text) RETURNS text
    IMMUTABLE PARALLEL SAFE LANGUAGE sql
    AS $$ SELECT lower(regexp_replace(normalize($1, NFD), '[\u0300-\u036f]', '', 'g')) $$;
ALTER TABLE players ADD COLUMN search_name text GENERATED ALWAYS AS (fold_name(name)) STORED;
