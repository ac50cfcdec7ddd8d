SELECT * FROM m_lookup WHERE id IN (0, 1, 999, 1999, 9999);
