DROP TABLE IF EXISTS pq_orders;
CREATE FOREIGN TABLE pq_orders OPTIONS (FILENAME '/var/lib/samebox/analytical/data/parquet/orders.parquet');
