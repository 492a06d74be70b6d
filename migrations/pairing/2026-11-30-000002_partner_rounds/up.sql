-- Partner events: Swiss rounds with byes; every round keeps the board mode it was drawn with, so
-- its boards can be reproduced from its seed.
ALTER TABLE rounds DROP CONSTRAINT rounds_stage_check;
ALTER TABLE rounds ADD CONSTRAINT rounds_stage_check CHECK (stage IN ('qualifying', 'semifinal', 'final', 'swiss'));
ALTER TABLE rounds
    ADD COLUMN format text NOT NULL DEFAULT 'classic',
    ADD COLUMN byes uuid[] NOT NULL DEFAULT '{}',
    ADD COLUMN board_mode text NOT NULL DEFAULT 'each_table',
    ADD COLUMN partner_rules jsonb;
