SELECT * FROM m_composite WHERE (a = 3 AND b = 21) OR (a = 99 AND b = 99) OR (a = 0 AND b = 0);
