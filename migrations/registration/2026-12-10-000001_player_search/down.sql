ALTER TABLE players DROP COLUMN search_name;
DROP FUNCTION fold_name(text);
