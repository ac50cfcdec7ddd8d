DROP TABLE IF EXISTS pq_events;
CREATE FOREIGN TABLE pq_events OPTIONS (FILENAME '/var/lib/samebox/analytical/data/parquet/events.parquet');
