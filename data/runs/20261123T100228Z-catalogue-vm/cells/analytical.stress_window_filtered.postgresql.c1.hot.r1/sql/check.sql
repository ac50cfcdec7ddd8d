SELECT event_type, user_id, score, RANK() OVER (PARTITION BY event_type ORDER BY score DESC) FROM events WHERE score > 8000 ORDER BY event_type, score DESC;
