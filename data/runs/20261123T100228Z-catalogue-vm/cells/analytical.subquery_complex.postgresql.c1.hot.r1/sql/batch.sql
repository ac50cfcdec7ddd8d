SELECT * FROM events WHERE user_id IN (SELECT id FROM customers WHERE tier = 'premium') AND amount > 100 ORDER BY amount DESC, id LIMIT 500;
SELECT * FROM events WHERE user_id IN (SELECT id FROM customers WHERE tier = 'premium') AND amount > 100 ORDER BY amount DESC, id LIMIT 500;
