-- The ratings say how fresh they are: each replay mark carries the time of the change that asked
-- for it, and a replay moves the ratings' `as_of` to the latest mark it took in.
ALTER TABLE ratings_stale ADD COLUMN as_of timestamptz NOT NULL DEFAULT now();
CREATE TABLE ratings_as_of (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    -- the last change the ratings include; the epoch while they include none
    as_of timestamptz NOT NULL
);
INSERT INTO ratings_as_of (as_of) VALUES ('1970-01-01T00:00:00Z');
-- A posted or corrected result marks its own table, not its event from its round: a new table
-- moves only its players' later games, so the replay starts from those players alone.
-- `ratings_stale` keeps the marks of whole events (a changed date, a merge).
CREATE TABLE ratings_stale_games (
    event_id uuid NOT NULL,
    round integer NOT NULL,
    table_number integer NOT NULL,
    marked bigint NOT NULL DEFAULT nextval('ratings_stale_marked_seq'),
    as_of timestamptz NOT NULL,
    PRIMARY KEY (event_id, round, table_number)
);
