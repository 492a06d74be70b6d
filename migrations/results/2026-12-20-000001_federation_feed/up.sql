-- The federation-wide results feed: each result row carries the id of the transaction that last
-- wrote it, so that a reader can stop below the oldest transaction still in flight and never
-- skip a change that commits late (see catan_kit::feed).
ALTER TABLE results ADD COLUMN txid bigint NOT NULL DEFAULT pg_current_xact_id()::text::bigint;

CREATE FUNCTION stamp_writing_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.txid := pg_current_xact_id()::text::bigint;
    RETURN NEW;
END;
$$;

CREATE TRIGGER results_stamp_writing_transaction BEFORE UPDATE ON results
    FOR EACH ROW EXECUTE FUNCTION stamp_writing_transaction();

CREATE INDEX results_feed ON results (txid, seq);
