SELECT * FROM pq_orders;
