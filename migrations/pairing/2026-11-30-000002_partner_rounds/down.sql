ALTER TABLE rounds DROP COLUMN partner_rules, DROP COLUMN board_mode, DROP COLUMN byes, DROP COLUMN format;
ALTER TABLE rounds DROP CONSTRAINT rounds_stage_check;
ALTER TABLE rounds ADD CONSTRAINT rounds_stage_check CHECK (stage IN ('qualifying', 'semifinal', 'final'));
