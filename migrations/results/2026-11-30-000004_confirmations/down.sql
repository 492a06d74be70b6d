DROP TABLE disputes;
DROP TABLE confirmations;
