CREATE OR REPLACE VIEW pq_orders AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/orders.parquet');
CREATE OR REPLACE VIEW pq_customers AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/customers.parquet');
CREATE OR REPLACE VIEW pq_products AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/products.parquet');
