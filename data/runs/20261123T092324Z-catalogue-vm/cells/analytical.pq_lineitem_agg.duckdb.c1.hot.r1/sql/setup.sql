CREATE OR REPLACE VIEW pq_lineitem AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/lineitem.parquet');
CREATE OR REPLACE VIEW pq_products AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/products.parquet');
