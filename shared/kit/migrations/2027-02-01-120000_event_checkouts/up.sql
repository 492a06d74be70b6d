-- Events checked out to a venue (issue 34), as registration tells this service: while an event
-- is here, this service refuses every write to it. Registration keeps the checkout itself.
CREATE TABLE IF NOT EXISTS event_checkouts (
    event_id uuid PRIMARY KEY,
    venue text NOT NULL,
    checked_out_at timestamptz NOT NULL DEFAULT now()
);
