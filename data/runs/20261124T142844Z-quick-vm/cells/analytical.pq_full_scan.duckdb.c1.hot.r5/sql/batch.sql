SELECT * FROM pq_orders;
SELECT * FROM pq_orders;
