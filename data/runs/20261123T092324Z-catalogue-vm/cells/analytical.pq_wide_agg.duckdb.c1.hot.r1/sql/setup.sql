CREATE OR REPLACE VIEW pq_metrics AS SELECT * FROM read_parquet('/var/lib/samebox-h6-cat/analytical/data/parquet/metrics.parquet');
