WITH user_totals AS (SELECT user_id, SUM(amount) AS total FROM events WHERE event_type = 0 GROUP BY user_id HAVING SUM(amount) > 500) SELECT * FROM user_totals ORDER BY total DESC, user_id LIMIT 100;
WITH user_totals AS (SELECT user_id, SUM(amount) AS total FROM events WHERE event_type = 0 GROUP BY user_id HAVING SUM(amount) > 500) SELECT * FROM user_totals ORDER BY total DESC, user_id LIMIT 100;
