SELECT rep_id, region_id, amount, RANK() OVER (PARTITION BY region_id ORDER BY amount DESC) FROM sales;
