SELECT * FROM midx WHERE status = 2 AND category = 17 AND score > 5000 ORDER BY score DESC, id LIMIT 50;
