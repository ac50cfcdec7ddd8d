SELECT UPPER(name), LENGTH(name), ABS(score), ROUND(score::numeric, 2) FROM m_scalar;
