SELECT * FROM events ORDER BY score DESC, id ASC;
