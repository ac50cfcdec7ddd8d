SELECT o.id, o.customer_id, o.amount, o.quantity FROM orders o WHERE o.customer_id IN (SELECT id FROM customers WHERE tier = 'premium') AND o.amount > 500 ORDER BY o.amount DESC, o.id LIMIT 100;
