CREATE OR REPLACE VIEW pq_events AS SELECT * FROM read_parquet('/var/lib/samebox/analytical/data/parquet/events.parquet');
