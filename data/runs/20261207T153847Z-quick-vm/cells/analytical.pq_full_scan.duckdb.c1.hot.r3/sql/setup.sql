CREATE OR REPLACE VIEW pq_orders AS SELECT * FROM read_parquet('/var/lib/samebox/analytical/data/parquet/orders.parquet');
