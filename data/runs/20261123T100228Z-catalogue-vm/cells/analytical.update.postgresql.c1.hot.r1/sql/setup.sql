DROP TABLE IF EXISTS w_update;
CREATE TABLE w_update (id INTEGER, val INTEGER);
INSERT INTO w_update SELECT id, id FROM m_scan;
