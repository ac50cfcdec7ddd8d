SELECT id, grp, val, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY val, id) FROM m_window;
