DROP TABLE IF EXISTS w_insert_bulk;
CREATE TABLE w_insert_bulk (id INTEGER, name VARCHAR(100), score DOUBLE PRECISION);
