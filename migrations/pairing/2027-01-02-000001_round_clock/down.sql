DROP TABLE round_clock_notices;
DROP TABLE round_clock_actions;
