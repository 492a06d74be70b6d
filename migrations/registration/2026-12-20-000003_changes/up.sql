-- Registration's change feed: a row for every insert or update of an event, an entry or a
-- player, written by triggers so that no write path can forget one. Readers take the rows of
-- transactions older than the oldest one still in flight, in (txid, seq) order: all of those have
-- ended, so a change that commits late is never passed by a reader's cursor.
CREATE TABLE changes (
    txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    seq bigserial NOT NULL,
    kind text NOT NULL CHECK (kind IN ('event', 'entry', 'player')),
    id uuid NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (txid, seq)
);

-- The search_path is fixed at creation (this schema), so that a write made with any search_path
-- records its change here.
CREATE FUNCTION record_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path FROM CURRENT
    AS $$
BEGIN
    INSERT INTO changes (kind, id) VALUES (TG_ARGV[0], NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER events_changed AFTER INSERT OR UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION record_change('event');
CREATE TRIGGER entries_changed AFTER INSERT OR UPDATE ON entries
    FOR EACH ROW EXECUTE FUNCTION record_change('entry');
CREATE TRIGGER players_changed AFTER INSERT OR UPDATE ON players
    FOR EACH ROW EXECUTE FUNCTION record_change('player');

-- What exists already, once each: players and events before the entries that name them.
INSERT INTO changes (kind, id, changed_at)
SELECT kind, id, created_at
FROM (
    SELECT 'player' AS kind, id, created_at, 1 AS rank FROM players
    UNION ALL
    SELECT 'event', id, created_at, 2 FROM events
    UNION ALL
    SELECT 'entry', id, created_at, 3 FROM entries
) AS existing
ORDER BY rank, created_at, id;
