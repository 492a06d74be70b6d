ALTER TABLE results DROP CONSTRAINT results_stage_check;
ALTER TABLE results ADD CONSTRAINT results_stage_check CHECK (stage IN ('qualifying', 'semifinal', 'final'));
