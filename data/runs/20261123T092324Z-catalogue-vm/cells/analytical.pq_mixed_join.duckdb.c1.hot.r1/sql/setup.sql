CREATE OR REPLACE VIEW pq_sales AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/sales.parquet');
