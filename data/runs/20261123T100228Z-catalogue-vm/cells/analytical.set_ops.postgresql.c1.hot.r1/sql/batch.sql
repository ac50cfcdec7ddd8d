SELECT id, val FROM m_set1 UNION SELECT id, val FROM m_set2;
SELECT id, val FROM m_set1 UNION SELECT id, val FROM m_set2;
SELECT id, val FROM m_set1 UNION SELECT id, val FROM m_set2;
SELECT id, val FROM m_set1 UNION SELECT id, val FROM m_set2;
SELECT id, val FROM m_set1 UNION SELECT id, val FROM m_set2;
