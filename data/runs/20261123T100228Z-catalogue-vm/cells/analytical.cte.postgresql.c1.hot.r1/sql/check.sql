WITH filtered AS (SELECT * FROM m_cte WHERE val > 500) SELECT * FROM filtered WHERE category = 'cat_3';
