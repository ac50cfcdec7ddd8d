SELECT region, SUM(amount) FROM m_sales GROUP BY region;
