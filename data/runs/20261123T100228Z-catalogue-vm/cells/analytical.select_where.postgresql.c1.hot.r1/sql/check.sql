SELECT * FROM m_where WHERE amount > 2500;
