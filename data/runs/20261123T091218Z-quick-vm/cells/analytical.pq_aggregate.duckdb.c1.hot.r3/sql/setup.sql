CREATE OR REPLACE VIEW pq_events AS SELECT * FROM read_parquet('/var/lib/samebox-h6/analytical/data/parquet/events.parquet');
