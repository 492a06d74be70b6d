-- Partner events: results of Swiss rounds (the sheet column also holds the teams' lines).
ALTER TABLE results DROP CONSTRAINT results_stage_check;
ALTER TABLE results ADD CONSTRAINT results_stage_check CHECK (stage IN ('qualifying', 'semifinal', 'final', 'swiss'));
