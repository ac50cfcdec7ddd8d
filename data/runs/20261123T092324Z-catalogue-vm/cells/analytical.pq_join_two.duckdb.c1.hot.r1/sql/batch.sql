SELECT pq_customers.region, COUNT(*), SUM(pq_orders.amount) FROM pq_orders JOIN pq_customers ON pq_orders.customer_id = pq_customers.id GROUP BY pq_customers.region ORDER BY pq_customers.region;
