SELECT event_type, COUNT(*), SUM(amount), AVG(score) FROM pq_events GROUP BY event_type;
