SELECT * FROM pq_events ORDER BY score DESC;
