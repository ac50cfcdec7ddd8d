SELECT category, SUM(price * quantity) FROM m_expr GROUP BY category;
