SELECT * FROM m_scan;
