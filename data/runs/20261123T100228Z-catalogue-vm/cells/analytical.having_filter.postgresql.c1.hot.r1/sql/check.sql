SELECT customer_id, COUNT(*), SUM(amount) FROM orders GROUP BY customer_id HAVING SUM(amount) > 13000;
