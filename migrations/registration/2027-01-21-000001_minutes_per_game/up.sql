-- A classic event's minutes a game (issue 32), what its rounds' clocks start with by default; none
-- for the rules' 90. A partner event keeps its minutes in partner_rules.
ALTER TABLE events ADD COLUMN minutes_per_game integer CHECK (minutes_per_game BETWEEN 1 AND 600);
