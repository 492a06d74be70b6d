-- The director may void a table's result before the next round is drawn: the table then has no
-- result (its row stays, marked, so that the change feed carries the void), and the voided
-- version stays in the history, marked too. A new sheet is recorded as the next version.
ALTER TABLE results ADD COLUMN voided boolean NOT NULL DEFAULT false;
ALTER TABLE result_versions ADD COLUMN voided boolean NOT NULL DEFAULT false;
