SELECT DISTINCT category FROM m_distinct;
