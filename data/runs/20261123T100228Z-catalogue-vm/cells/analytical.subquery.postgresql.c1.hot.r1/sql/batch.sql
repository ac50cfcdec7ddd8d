SELECT * FROM m_sub1 WHERE id IN (SELECT id FROM m_sub2 WHERE flag > 500);
SELECT * FROM m_sub1 WHERE id IN (SELECT id FROM m_sub2 WHERE flag > 500);
SELECT * FROM m_sub1 WHERE id IN (SELECT id FROM m_sub2 WHERE flag > 500);
SELECT * FROM m_sub1 WHERE id IN (SELECT id FROM m_sub2 WHERE flag > 500);
SELECT * FROM m_sub1 WHERE id IN (SELECT id FROM m_sub2 WHERE flag > 500);
