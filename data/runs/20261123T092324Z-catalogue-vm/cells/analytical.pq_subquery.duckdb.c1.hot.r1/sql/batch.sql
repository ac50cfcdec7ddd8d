SELECT * FROM pq_events WHERE user_id IN (SELECT id FROM pq_customers WHERE tier = 'premium') AND amount > 500 ORDER BY score DESC, id LIMIT 100;
SELECT * FROM pq_events WHERE user_id IN (SELECT id FROM pq_customers WHERE tier = 'premium') AND amount > 500 ORDER BY score DESC, id LIMIT 100;
