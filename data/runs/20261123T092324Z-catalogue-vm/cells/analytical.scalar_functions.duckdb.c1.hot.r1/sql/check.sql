SELECT UPPER(name), LENGTH(name), ABS(score), ROUND(score, 2) FROM m_scalar;
